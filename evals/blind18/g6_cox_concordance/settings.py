# Training settings (read with runpy.run_path; plain Python constants).
SEED = 31337
N_TRAIN = 4096
N_MONITOR = 560
N_FEATURES = 12
BATCH_SIZE = 64
NUM_WORKERS = 0
MAX_EPOCHS = 2
MAX_STEPS = 64
LR = 3e-3
HIDDEN = 32
# days at which the time-dependent Brier score is logged
BRIER_TIMES = [90, 180, 365, 540, 730, 1095]
