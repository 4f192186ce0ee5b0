"""Run settings for the diarisation trainer (loaded with runpy.run_path)."""
SEED = 1234

# corpus
N_MEETINGS = 6
MEETING_MINUTES = 8
SPEAKER_POOL = 12
N_MELS = 24
CHUNK_STRIDE_S = 2.0
CHUNK_SECONDS = (4, 5, 6, 7, 8)

# frames
FRAME_HOP_S = 0.01
FRAME_WIN_S = 0.025
MAX_SPEAKERS = 4
COLLAR_S = 0.05

# training
BATCH_SIZE = 16
NUM_WORKERS = 0
SHUFFLE = True
EPOCHS = 2
LR = 2e-3
OVERLAP_WEIGHT = 0.5
LOG_EVERY = 10
