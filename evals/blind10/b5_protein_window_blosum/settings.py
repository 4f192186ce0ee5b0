# Training settings for the secondary-structure tagger (read with runpy.run_path).
SEED = 31337

N_PROTEINS = 800
MIN_LEN = 120
MAX_LEN = 420
CROP = 160
WINDOW = 15            # residues in the composition window (odd)
BLOSUM_SCALE = 4.0

BATCH_SIZE = 40
NUM_WORKERS = 0
EPOCHS = 4
LR = 3e-3
LOG_EVERY = 10
