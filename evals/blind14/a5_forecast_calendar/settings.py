# Run settings for the store-demand forecaster (read by train.py with runpy.run_path).
SEED = 11
NUM_WORKERS = 0

# data
N_SERIES = 12
START_DATE = "2021-01-01"
N_DAYS = 1200
MISSING_RATE = 0.06
COUNTRIES = ("DE", "FR", "NL")

# windows
CONTEXT_LENGTH = 112
PREDICTION_LENGTH = 28
LAGS = (1, 2, 7, 14, 28, 91, 364)
WINDOW_STRIDE = 3

# optimisation
BATCH_SIZE = 32
LEARNING_RATE = 2e-3
EPOCHS = 3
MAX_STEPS = 150
HIDDEN = 64
