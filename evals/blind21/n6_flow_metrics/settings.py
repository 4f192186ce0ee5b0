"""Training settings for the tiny flow network (imported by path: python train.py --settings settings.py)."""
SEED = 3
IMAGE_SIZE = (64, 96)         # H, W
NUM_PAIRS = 1200
MAX_FLOW = 6.0                # px, before smoothing
SPARSE_VALID = 0.75           # KITTI-like sparse ground truth: fraction of pixels with a label

BATCH_SIZE = 12
NUM_WORKERS = 0
MAX_EPOCHS = 1

WIDTH = 12
LR = 2e-3
WEIGHT_DECAY = 1e-4

FL_PIXEL_THRESHOLD = 3.0      # px
FL_RELATIVE_THRESHOLD = 0.05  # of the ground-truth flow magnitude
LOG_EVERY_N_STEPS = 10
