"""Run settings (read with runpy.run_path; upper-case names only)."""
SEED = 31337

# catalogue and click-stream
N_ITEMS = 3000
N_SESSIONS = 6144
MIN_EVENTS, MAX_EVENTS = 4, 300

# cloze (masked item) objective
MAX_LEN = 160
MASK_PROB = 0.2
GAP_BOUNDARIES_S = [2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 86400]

# model / optimisation
EMBED_DIM = 16
N_NEGATIVES = 48
LR = 2e-3
BATCH_SIZE = 384
BUCKET_SIZE = 8          # batches per length bucket
NUM_WORKERS = 0
NUM_TRAIN_EPOCHS = 4
LOGGING_STEPS = 20
