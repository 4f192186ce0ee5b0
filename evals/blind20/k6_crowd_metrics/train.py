"""Crowd counting by density regression.

    python train.py --settings settings_crowd.py
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")        # keep BLAS from oversubscribing the data side
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402

import torch  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402

from crowd.callbacks import ConsoleLogger, CrowdCountingMetrics  # noqa: E402
from crowd.data import CrowdScenes  # noqa: E402
from crowd.module import CrowdCounter  # noqa: E402
from crowd.trainer import Trainer  # noqa: E402
from evalkit import Meter  # noqa: E402


def load_settings(path):
    spec = importlib.util.spec_from_file_location("crowd_settings", path)
    settings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(settings)
    return settings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings_crowd.py")
    s = load_settings(ap.parse_args().settings)

    torch.set_num_threads(1)
    torch.manual_seed(s.SEED)
    dataset = CrowdScenes(s.NUM_IMAGES, s.IMAGE_SIZE, s.MEAN_HEADS, s.HEAD_SIGMA, s.SEED)
    loader = DataLoader(dataset, batch_size=s.BATCH_SIZE, shuffle=s.SHUFFLE, num_workers=s.NUM_WORKERS,
                        generator=torch.Generator().manual_seed(s.SEED))

    metrics = CrowdCountingMetrics(s.DENSITY_BINS, s.GRID)
    meter = Meter()
    trainer = Trainer(s.MAX_EPOCHS, callbacks=[metrics, ConsoleLogger(s.LOG_EVERY_N_STEPS)], meter=meter)
    trainer.fit(CrowdCounter(s.LEARNING_RATE, s.DENSITY_SCALE), loader)

    last = metrics.history[-1] if metrics.history else {}
    meter.report(extra={
        "steps": trainer.global_step,
        "last": last,
        "grid_mae_curve": [r["grid_mae"] for r in metrics.history],
        "dense_mae_curve": [r.get(f"mae/{metrics.bin_names[-1]}") for r in metrics.history],
        "density_mse_curve": [r["density_mse"] for r in metrics.history],
    })


if __name__ == "__main__":
    main()
