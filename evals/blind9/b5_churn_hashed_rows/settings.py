# Training settings (read with runpy.run_path)
SEED = 31
N_ROWS = 30000

CATEGORICAL = ["region", "device", "browser", "plan", "channel", "occupation", "education", "marital"]
HASHED = ["zip_code", "employer", "referrer"]
NUMERIC = ["age", "income", "tenure_months", "n_tickets", "monthly_fee", "credit_score"]
CROSSES = [
    ("region", "plan"),
    ("device", "browser"),
    ("occupation", "education"),
    ("plan", "channel"),
    ("region", "zip_code"),
    ("age_bucket", "plan"),
    ("tenure_bucket", "channel"),
    ("marital", "age_bucket"),
]
HASH_BUCKETS = 4096
MIN_CATEGORY_COUNT = 20
N_QUANTILE_BUCKETS = 10

BATCH_SIZE = 512
NUM_WORKERS = 0
EPOCHS = 7
EMBED_DIM = 8
HIDDEN = [64, 32]
LR = 3e-3
LOG_EVERY = 20
