# Training settings (read with runpy; upper-case names only)
SEED = 606
IMAGE_SIZE = 48
MAX_PERSONS = 3
SLOTS = 4
NUM_IMAGES = 2048
BATCH_SIZE = 32
NUM_WORKERS = 0
EPOCHS = 1
LR = 2e-3
WEIGHT_DECAY = 1e-4
SCORE_WEIGHT = 0.5
# evaluation logged every step, COCO keypoint style
METRIC_WINDOW = 16            # AP over the predictions of the last N steps
OKS_THRESHOLDS = [0.5 + 0.05 * i for i in range(10)]
PCK_ALPHA = 0.2
LOG_EVERY = 10
