# Training settings (read with runpy.run_path; UPPER_CASE names only).
SEED = 5
SEQUENCES = 6
FRAMES_PER_SEQUENCE = 320
CLIP_LENGTH = 24
CLIP_STRIDE = 4
MAX_TRACKS = 64
MIN_VISIBILITY = 0.25
KEEP_CLASSES = (1, 2)          # pedestrian, person on vehicle
BATCH_SIZE = 16
NUM_WORKERS = 0
SHUFFLE = True
EPOCHS = 8
MAX_STEPS = 130
LR = 2e-3
LOG_EVERY = 25
