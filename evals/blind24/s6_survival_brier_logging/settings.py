"""Experiment settings (a plain Python module, read by train.py --settings)."""
SEED = 17

N_PATIENTS = 6144
N_FEATURES = 16
HORIZON_DAYS = 1800
N_BINS = 40

HIDDEN = 64
BATCH_SIZE = 512
EPOCHS = 9
LR = 2e-3
WEIGHT_DECAY = 1e-5

# Brier score evaluated at the end of every time bin
BRIER_GRID_DAYS = [HORIZON_DAYS / N_BINS * (k + 1) for k in range(N_BINS)]
