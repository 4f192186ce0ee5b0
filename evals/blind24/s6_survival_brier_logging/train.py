"""Train a discrete-time survival model; logs an IPCW integrated Brier score every step."""
import argparse
import random
import runpy

import numpy as np
import torch

import evalkit
from survkit.callbacks import BrierScoreLogger
from survkit.cohort import CohortDataset, make_cohort
from survkit.loop import Callback, FitLoop
from survkit.model import DiscreteHazardNet


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_batch_start(self, loop, batch):
        self.meter.batch(batch)

    def on_batch_end(self, loop, batch, logits, loss):
        self.meter.step(loss)
        loop.should_stop = self.meter.done()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    s = runpy.run_path(ap.parse_args().settings)
    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    x, days, event = make_cohort(s["N_PATIENTS"], s["N_FEATURES"], s["HORIZON_DAYS"], s["SEED"])
    ds = CohortDataset(x, days, event, s["N_BINS"], s["HORIZON_DAYS"])
    model = DiscreteHazardNet(s["N_FEATURES"], s["N_BINS"], s["HIDDEN"])
    brier = BrierScoreLogger(s["BRIER_GRID_DAYS"])
    meter = evalkit.Meter()
    loop = FitLoop(model, ds, s["BATCH_SIZE"], s["EPOCHS"], s["LR"], s["WEIGHT_DECAY"], s["SEED"],
                   callbacks=[brier, MeterCallback(meter)])
    loop.run()
    meter.report({"ibs_per_step": brier.history,
                  "ibs_final": brier.history[-1] if brier.history else None})


if __name__ == "__main__":
    main()
