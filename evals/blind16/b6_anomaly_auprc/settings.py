"""Run settings for the telemetry anomaly detector (loaded with runpy)."""
SEED = 4242
NUM_RECORDS = 24000
ANOMALY_RATE = 0.03
NUM_WORKERS = 0
BATCH_SIZE = 256
ANOMALIES_PER_BATCH = 8
EPOCHS = 2
LR = 1e-2
HIDDEN = 32
# metrics: rolling window of recent batches, threshold grid for the best-F1 sweep
METRIC_WINDOW_BATCHES = 32
F1_THRESHOLDS = 100
LOG_EVERY = 20
