"""Train a track motion model on MOT clips.

    python train.py --settings settings.py
"""
import argparse
import random
import runpy

import numpy as np
import torch
from torch.utils.data import DataLoader

import evalkit
from mot import MOTClipDataset, MOTTrackCollator, MotionModule, synthesize_gt

SIZES = [(1920, 1080), (1920, 1080), (640, 480), (1280, 720), (1920, 1080), (1280, 720)]


def load_settings(path):
    return {k: v for k, v in runpy.run_path(path).items() if k.isupper()}


def fit(module, loader, epochs, max_steps, log_every):
    opt = module.configure_optimizers()
    meter = evalkit.Meter()
    step, visible_total = 0, 0
    for epoch in range(epochs):
        for batch_idx, batch in enumerate(loader):
            meter.batch(batch.as_dict())
            loss = module.training_step(batch, batch_idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            visible_total += int(batch.visible.sum())
            if step % log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.5f} tracks {batch.boxes.shape[2]}",
                      flush=True)
            if meter.done() or step >= max_steps:
                meter.report(extra={"visible_boxes": visible_total, "steps": step})
                return
    meter.report(extra={"visible_boxes": visible_total, "steps": step})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    s = load_settings(ap.parse_args().settings)
    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    seqs = []
    for i in range(s["SEQUENCES"]):
        w, h = SIZES[i % len(SIZES)]
        seqs.append({"gt": synthesize_gt(s["SEED"] * 100 + i, s["FRAMES_PER_SEQUENCE"], w, h),
                     "size": (w, h), "n_frames": s["FRAMES_PER_SEQUENCE"]})
    ds = MOTClipDataset(seqs, s["CLIP_LENGTH"], s["CLIP_STRIDE"])
    collate = MOTTrackCollator(s["MAX_TRACKS"], s["MIN_VISIBILITY"], s["KEEP_CLASSES"], s["SEED"] + 1)
    loader = DataLoader(ds, batch_size=s["BATCH_SIZE"], shuffle=s["SHUFFLE"], num_workers=s["NUM_WORKERS"],
                        collate_fn=collate, generator=torch.Generator().manual_seed(s["SEED"]))
    module = MotionModule(lr=s["LR"])
    fit(module, loader, s["EPOCHS"], s["MAX_STEPS"], s["LOG_EVERY"])


if __name__ == "__main__":
    main()
