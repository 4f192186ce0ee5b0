"""Settings for the crowd-density counter (read by train.py --settings)."""

SEED = 3
IMAGE_SIZE = 96
NUM_IMAGES = 480
MEAN_HEADS = (20, 90, 260)        # sparse / medium / dense scenes
HEAD_SIGMA = 2.0

BATCH_SIZE = 16
NUM_WORKERS = 0
SHUFFLE = True
MAX_EPOCHS = 3
LEARNING_RATE = 2e-3
DENSITY_SCALE = 100.0

# metrics
DENSITY_BINS = (0, 50, 150)       # lower edges of the per-bin MAE/RMSE buckets (by true count)
GRID = 4                          # the image is cut into GRID x GRID cells for the grid error
LOG_EVERY_N_STEPS = 15
