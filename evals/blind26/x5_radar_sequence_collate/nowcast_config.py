"""Experiment config (plain Python, loaded by train.py)."""

SEED = 314
TORCH_THREADS = 1

DATA = dict(
    n_sequences=256,
    grid=40,
    min_frames=4,
    max_frames=12,
    n_cells=3,
    dbz_clip=(0.0, 70.0),
    dbz_mean=18.0,
    dbz_std=12.0,
)

MODEL = dict(hidden=8)

OPTIM = dict(epochs=4, batch_size=16, lr=2e-3)
