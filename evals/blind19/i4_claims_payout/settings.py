"""Training settings (a Django-style settings module: plain upper-case constants)."""

SEED = 2024

# policy book and claims
NUM_POLICIES = 120
NUM_CLAIMS = 3200
SECTIONS_PER_POLICY = (4, 6)
COVERAGES_PER_SECTION = (5, 9)
SCHEDULE_ITEMS = (60, 140)
ENDORSEMENTS = (2, 6)

# loader
BATCH_SIZE = 32
NUM_WORKERS = 0

# model / optimisation
HIDDEN = 64
LR = 1e-3
WEIGHT_DECAY = 1e-4
EPOCHS = 1
LOG_EVERY = 20
