# Training settings, one `key = value` per line.
seed = 5
epochs = 100
batch_size = 32
num_workers = 0
width = 64
lr = 1e-3
