# mmcv-style config: plain Python, read with runpy
seed = 11
num_threads = 1

data = dict(
    train=dict(n_frag=768, min_len=60, max_len=200, coord_noise=0.05),
    val=dict(n_frag=96, min_len=60, max_len=200, coord_noise=0.0),
    batch_size=48,
)
model = dict(in_dim=10, hidden=16, n_classes=3)
optimizer = dict(lr=3e-3, weight_decay=1e-4)
runner = dict(max_epochs=4, log_interval=8)
