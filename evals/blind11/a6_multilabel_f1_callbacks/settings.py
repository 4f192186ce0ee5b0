"""Run settings (loaded with runpy.run_path; plain Python so that ranges and tuples stay readable)."""
SEED = 17

DATA = {
    "num_docs": 4096,
    "num_features": 192,
    "num_labels": 40,
    "latent_dim": 12,
    "label_noise": 0.02,
}

LOADER = {
    "batch_size": 64,
    "num_workers": 0,
    "shuffle": True,
}

MODEL = {"hidden": 128, "dropout": 0.1}

OPTIM = {"lr": 2e-3, "weight_decay": 1e-4}

TRAINER = {
    "epochs": 10,
    # metrics over a sliding window of the most recent batches, at every step
    "metric_window": 12,
    "thresholds": (0.3, 0.4, 0.5, 0.6, 0.7),
}
