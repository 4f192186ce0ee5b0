"""Experiment settings (a Django-style settings module: plain constants)."""
SEED = 5

# data
NUM_SPEAKERS = 160
UTTS_PER_SPEAKER = 12
N_MELS = 40
NUM_FRAMES = 48

# sampler: P speakers x K utterances per batch
SPEAKERS_PER_BATCH = 14
UTTS_PER_BATCH_SPEAKER = 4

# model
CHANNELS = 48
EMBED_DIM = 32

# optimisation
LEARNING_RATE = 2e-3
MAX_STEPS = 70

# verification metrics logged every step on the batch's all-pairs trials
P_TARGET = 0.05
C_MISS = 1.0
C_FA = 1.0
LOG_EVERY = 20
