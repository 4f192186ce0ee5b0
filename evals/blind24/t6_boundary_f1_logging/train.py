"""Segment synthetic scenes; log the boundary F-measure per class every step."""
import argparse
import importlib.util
import random

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from segscenes.callbacks import BoundaryF1Logger, ConsoleLogger
from segscenes.data import SceneDataset
from segscenes.model import TinyFCN
from segscenes.scenes import make_scenes


def load_settings(path):
    spec = importlib.util.spec_from_file_location("run_settings", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    s = load_settings(ap.parse_args().settings)
    random.seed(s.SEED)
    np.random.seed(s.SEED)
    torch.manual_seed(s.SEED)
    torch.set_num_threads(1)

    images, masks = make_scenes(s.NUM_SCENES, s.IMAGE_SIZE, s.SEED)
    ds = SceneDataset(images, masks, augment=s.AUGMENT, seed=s.SEED + 1)
    loader = DataLoader(ds, batch_size=s.BATCH_SIZE, shuffle=True, num_workers=s.NUM_WORKERS,
                        generator=torch.Generator().manual_seed(s.SEED), drop_last=True)
    model = TinyFCN(s.NUM_CLASSES)
    opt = torch.optim.Adam(model.parameters(), lr=s.LR, betas=(s.MOMENTUM, 0.999))
    bf = BoundaryF1Logger(s.CLASS_NAMES, s.BOUNDARY_TOLERANCE_PX)
    callbacks = [bf, ConsoleLogger(s.LOG_EVERY, bf)]
    class_weights = torch.tensor(s.CLASS_WEIGHTS, dtype=torch.float32)
    meter = evalkit.Meter()
    step = 0
    for epoch in range(s.EPOCHS):
        model.train()
        for batch in loader:
            images_b, masks_b = batch
            meter.batch(batch)
            logits = model(images_b)
            loss = F.cross_entropy(logits, masks_b, weight=class_weights)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            for cb in callbacks:
                cb.on_step_end(step, batch, logits, loss)
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"bf_history": bf.history, **bf.summary()})


if __name__ == "__main__":
    main()
