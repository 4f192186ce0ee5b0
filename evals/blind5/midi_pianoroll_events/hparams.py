# Hyper-parameters for the piano-roll style classifier (read with runpy by train.py).
SEED = 4242
NUM_TRACKS = 1200
BEATS_PER_TRACK = 64
TICKS_PER_BEAT = 96
TICKS_PER_FRAME = 24          # 16th-note grid
WINDOW_FRAMES = 128
MAX_TRANSPOSE = 5
BATCH_SIZE = 16
NUM_WORKERS = 0
EPOCHS = 2
LR = 1e-3
HIDDEN = 32
LOG_EVERY = 20
