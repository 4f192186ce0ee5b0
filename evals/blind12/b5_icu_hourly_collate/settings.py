"""Run settings (read with runpy.run_path): in-hospital mortality from the first days of ICU vitals/labs."""
SEED = 31
NUM_STAYS = 1000
MIN_STAY_HOURS = 52
MAX_STAY_HOURS = 110
WINDOW_HOURS = 48            # hourly slots per sample
MORTALITY_RATE = 0.14

BATCH_SIZE = 64
POSITIVES_PER_BATCH = 10     # the batch sampler keeps every batch balanced
NUM_WORKERS = 0
EPOCHS = 7
LR = 1e-3
HIDDEN = 32
