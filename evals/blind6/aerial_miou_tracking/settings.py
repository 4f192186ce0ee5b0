# Training settings (read with runpy, mmseg style).
seed = 5
num_images = 2200
image_size = 80
num_classes = 4          # background, road, building, water
class_names = ["background", "road", "building", "water"]
batch_size = 16
max_epochs = 1
optimizer = dict(type="SGD", lr=0.05, momentum=0.9, weight_decay=1e-4)
log_interval = 30
