# Training settings (read with runpy.run_path; plain module-level names).
SEED = 31337

NUM_ARTICLES = 640
MIN_SENTENCES, MAX_SENTENCES = 30, 48

MAX_LENGTH = 160          # [CLS] question [SEP] context-window [SEP]
MAX_QUERY_LENGTH = 24
DOC_STRIDE = 64           # tokens of overlap between consecutive windows
P_ANSWER_WINDOW = 0.6     # chance to train on a window that contains the answer

BATCH_SIZE = 16
NUM_WORKERS = 0
EPOCHS = 5
LR = 2e-3
LOG_EVERY = 20
