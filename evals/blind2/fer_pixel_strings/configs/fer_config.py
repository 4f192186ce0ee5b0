# mmcv-style Python config: plain assignments, read with runpy.
seed = 3
data = dict(
    csv_file="data/fer_synth.csv",
    num_images=1536,
    image_size=48,
    crop_size=44,
    flip_prob=0.5,
    mean=0.5,
    std=0.25,
)
loader = dict(batch_size=64, num_workers=0, drop_last=True)
model = dict(channels=(8, 16), num_classes=7)
optimizer = dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
schedule = dict(epochs=3, warmup_iters=10, print_freq=10)
