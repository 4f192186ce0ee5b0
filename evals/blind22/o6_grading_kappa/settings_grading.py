"""Run settings for the five-grade ordinal classifier (read by train.py --settings)."""
SEED = 11

# data
NUM_SAMPLES = 276480
NUM_FEATURES = 24
GRADE_NAMES = ["none", "mild", "moderate", "severe", "proliferative"]
LABEL_NOISE = 0.6

# loader / optimisation
BATCH_SIZE = 3072
NUM_WORKERS = 0
EPOCHS = 1
LR = 2e-3
WEIGHT_DECAY = 1e-4
HIDDEN = (64, 32)

# logging
LOG_EVERY = 20
