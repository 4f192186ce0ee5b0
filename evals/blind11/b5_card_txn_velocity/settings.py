"""Run settings (loaded with runpy.run_path)."""
SEED = 4242

# synthetic card ledger
N_USERS = 320
N_TRANSACTIONS = 40000
START_DATE = "2024-03-01 00:00:00"
DAYS = 30
SHARDS = 4  # the export arrives as several shards concatenated (not time-ordered)

# features
WINDOWS_SECONDS = (3600, 86400)

# training
BATCH_SIZE = 64
NUM_WORKERS = 0
MAX_STEPS = 70
LR = 3e-3
EMBED_DIM = 8
HIDDEN = 64
LOG_EVERY = 10
