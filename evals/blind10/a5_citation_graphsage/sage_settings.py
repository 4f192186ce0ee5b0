"""Settings for train.py (loaded with runpy; plain module-level constants)."""

SEED = 11

# graph
NUM_NODES = 20_000
NUM_CLASSES = 7
FEATURE_DIM = 128
REFS_PER_PAPER = (3, 14)        # uniform range of references per new paper
TRAIN_FRACTION = 0.15

# sampling
FANOUTS = [10, 10]               # neighbours per node, from the seeds outwards
BATCH_SIZE = 32
NUM_WORKERS = 0

# optimisation
HIDDEN = 64
LR = 0.005
WEIGHT_DECAY = 5e-4
MAX_STEPS = 260
LOG_EVERY = 20
