"""Panoptic segmentation of toy street scenes, with training PQ tracked every step.

    python train.py --config configs/panoptic_small.json
"""
import argparse
import json

import torch
from torch.utils.data import DataLoader

from evalkit import Meter
from panoptic.callbacks import ConsoleLogger, MeterCallback, PanopticQualityCallback
from panoptic.engine import Engine
from panoptic.net import TinyPanopticFCN
from panoptic.scenes import CLASS_NAMES, StreetScenes

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/panoptic_small.json")
cfg = json.load(open(ap.parse_args().config))

torch.set_num_threads(cfg["threads"])
torch.manual_seed(cfg["seed"])
data = StreetScenes(seed=cfg["seed"], **cfg["dataset"])
loader = DataLoader(data, batch_size=cfg["train"]["batch_size"], shuffle=True, drop_last=True,
                    num_workers=0, generator=torch.Generator().manual_seed(cfg["seed"]))
model = TinyPanopticFCN(len(CLASS_NAMES), cfg["model"]["width"])
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["train"]["lr"], momentum=cfg["train"]["momentum"])

meter = Meter()
pq_cb = PanopticQualityCallback(len(CLASS_NAMES), cfg["metric"]["min_area"])
engine = Engine(model, optimizer, loader, cfg["train"]["epochs"],
                callbacks=[MeterCallback(meter), pq_cb, ConsoleLogger(cfg["train"]["log_every"])])
engine.run()
meter.report({"pq_per_step": pq_cb.history,
              "miou_per_step": pq_cb.miou_history,
              "pq_things_last": engine.metrics.get("pq_things"),
              "pq_stuff_last": engine.metrics.get("pq_stuff")})
