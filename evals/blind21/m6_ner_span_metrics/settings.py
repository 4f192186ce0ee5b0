"""Run settings for the BIO tagger (loaded by path: python train.py --settings settings.py)."""

SEED = 31337
ENTITY_TYPES = ("PER", "ORG", "LOC", "DATE", "MISC")

# corpus
NUM_SENTENCES = 6200
MIN_LEN = 48
MAX_LEN = 96
VOCAB_SIZE = 3000
ENTITY_RATE = 0.08          # chance that an entity starts at a token

# model / optimisation
EMBED_DIM = 32
HIDDEN = 64
LR = 1e-2
BATCH_SIZE = 64
NUM_WORKERS = 0
EPOCHS = 1
MAX_STEPS = 90
LOG_EVERY = 15
