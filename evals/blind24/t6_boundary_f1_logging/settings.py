"""Run settings (imported by train.py --settings settings.py)."""

SEED = 3

# data
NUM_SCENES = 352
IMAGE_SIZE = 40
NUM_CLASSES = 4          # background, disk, box, stripe
CLASS_NAMES = ("background", "disk", "box", "stripe")
AUGMENT = True

# loader
BATCH_SIZE = 16
NUM_WORKERS = 0

# optimisation
EPOCHS = 3
LR = 0.02
CLASS_WEIGHTS = (0.4, 2.0, 1.5, 2.0)   # background dominates the pixels
MOMENTUM = 0.9

# logging
BOUNDARY_TOLERANCE_PX = 2
LOG_EVERY = 8
