"""Experiment settings (a Django-style settings module)."""

SEED = 5

# synthetic archive: one CSV of daily records per field-season
NUM_FIELDS = 640
START_DATE = "2021-03-01"
DAYS = 240

# crop model
GDD_BASE_C = 10.0
GDD_CAP_C = 30.0
FROST_C = 0.0
HEAT_C = 32.0
SEASON_DAYS = 150
GDD_CHECKPOINTS = (30, 60, 90, 120, 150)
RAIN_WINDOW_HALF = 7
RAIN_OFFSETS = tuple(range(-30, 31, 5))
ANTECEDENT_DAYS = 14
DRY_ANTECEDENT_MM = 5.0
SOWING_JITTER_DAYS = 5

# training
BATCH_SIZE = 32
EPOCHS = 3
LR = 3e-3
WEIGHT_DECAY = 1e-4
HIDDEN = 64
TORCH_THREADS = 1
