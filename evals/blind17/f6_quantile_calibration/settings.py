# Training settings for the delivery-time quantile model (read with runpy).
SEED = 11
N_FEATURES = 16
N_TRAIN = 11264
N_MONITOR = 20480          # held-out rows the calibration monitor scores after every step
QUANTILES = tuple(round(0.05 * k, 2) for k in range(1, 20))   # 0.05 ... 0.95
INTERVALS = ((0.05, 0.95), (0.1, 0.9), (0.25, 0.75))
CALIBRATION_GRID = tuple(round(0.05 * k, 2) for k in range(1, 20))

HIDDEN = 64
BATCH_SIZE = 256
NUM_WORKERS = 0
EPOCHS = 2
LR = 3e-3
PRINT_EVERY = 20
