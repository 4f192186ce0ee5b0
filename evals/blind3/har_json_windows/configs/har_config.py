# Human activity recognition from 9-axis IMU windows (body acc, gyro, total acc).
seed = 11
data_dir = "data"
num_windows = 2400
window_len = 64
activities = ["walking", "upstairs", "downstairs", "sitting", "standing", "laying"]

batch_size = 64
epochs = 3
lr = 1e-3
hidden = 32
print_every = 25
