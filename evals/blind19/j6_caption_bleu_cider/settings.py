"""Run settings for the toy captioning experiment (imported by train.py --settings)."""

SEED = 31

# data
NUM_IMAGES = 800
REFS_PER_IMAGE = 5
FEATURE_DIM = 64
MAX_CAPTION_LEN = 18

# loader / optimisation
BATCH_SIZE = 16
NUM_WORKERS = 0
EPOCHS = 2
LR = 3e-3
EMBED_DIM = 32
HIDDEN_DIM = 64

# logging
METRICS_EVERY = 1          # corpus BLEU-4 / CIDEr-D on the training batch
PRINT_EVERY = 10
CIDER_SIGMA = 6.0
