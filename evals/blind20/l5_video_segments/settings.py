"""Run settings for the TSN-style action-recognition run (imported with --settings)."""

SEED = 99

# synthetic video store
NUM_VIDEOS = 48
FRAME_SIZE = 48
MIN_FRAMES = 5
MAX_FRAMES = 40
NUM_ACTIONS = 5

# clip sampling (temporal segment network style)
NUM_SEGMENTS = 8
CROP_SIZE = 32
FLIP_PROB = 0.5
MEAN = (0.45, 0.45, 0.45)
STD = (0.225, 0.225, 0.225)

# optimisation
CLIPS_PER_EPOCH = 540
BATCH_SIZE = 6
NUM_WORKERS = 0
EPOCHS = 1
LR = 0.02
LOG_EVERY = 15
