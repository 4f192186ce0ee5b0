import argparse
import importlib.util

import torch
from torch.utils.data import DataLoader

from evalkit import Meter
from flowkit.datasets import SyntheticFlowPairs
from flowkit.engine import FlowMetricsCallback, FlowModule, Trainer
from flowkit.model import TinyFlowNet


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings", default="settings.py")
    s = load_settings(parser.parse_args().settings)
    torch.set_num_threads(1)
    torch.manual_seed(s.SEED)

    ds = SyntheticFlowPairs(s.NUM_PAIRS, s.IMAGE_SIZE, s.MAX_FLOW, s.SPARSE_VALID, s.SEED)
    loader = DataLoader(ds, batch_size=s.BATCH_SIZE, shuffle=True, num_workers=s.NUM_WORKERS,
                        generator=torch.Generator().manual_seed(s.SEED), drop_last=True)
    module = FlowModule(TinyFlowNet(s.WIDTH), s.LR, s.WEIGHT_DECAY)
    metrics = FlowMetricsCallback(s.FL_PIXEL_THRESHOLD, s.FL_RELATIVE_THRESHOLD, s.LOG_EVERY_N_STEPS)
    meter = Meter()
    Trainer(s.MAX_EPOCHS, callbacks=[metrics], meter=meter).fit(module, loader)
    meter.report(extra={f"{key}_per_step": values for key, values in metrics.history.items()})


if __name__ == "__main__":
    main()
