"""Action recognition on short videos with TSN-style segment sampling."""
import argparse
import importlib
import time
import warnings

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from clips.collate import SegmentClipCollator
from clips.dataset import ClipDataset
from clips.model import TinyTSN
from clips.store import VideoStore
from evalkit import Meter

warnings.filterwarnings("ignore", category=UserWarning)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings", default="settings", help="python module with the run settings")
    args = parser.parse_args()
    S = importlib.import_module(args.settings.removesuffix(".py"))

    torch.set_num_threads(1)
    torch.manual_seed(S.SEED)
    store = VideoStore(S.NUM_VIDEOS, S.FRAME_SIZE, S.MIN_FRAMES, S.MAX_FRAMES, S.NUM_ACTIONS, S.SEED)
    dataset = ClipDataset(store, S.CLIPS_PER_EPOCH)
    collator = SegmentClipCollator(S.NUM_SEGMENTS, S.CROP_SIZE, S.FLIP_PROB, S.MEAN, S.STD, S.SEED + 1)
    loader = DataLoader(dataset, batch_size=S.BATCH_SIZE, shuffle=True, collate_fn=collator,
                        num_workers=S.NUM_WORKERS, generator=torch.Generator().manual_seed(S.SEED))

    model = TinyTSN(S.NUM_ACTIONS)
    opt = torch.optim.SGD(model.parameters(), lr=S.LR, momentum=0.9, weight_decay=5e-4)
    meter = Meter()
    valid_frames = []
    t0 = time.time()
    for epoch in range(S.EPOCHS):
        for it, batch in enumerate(loader):
            meter.batch(batch)
            logits = model(batch["clips"], batch["frame_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            valid_frames.append(int(batch["frame_mask"].sum()))
            if (it + 1) % S.LOG_EVERY == 0:
                print(f"ep {epoch} it {it + 1} loss {loss.item():.4f} valid {valid_frames[-1]} "
                      f"{time.time() - t0:.1f}s", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"valid_frames_per_batch": valid_frames})


if __name__ == "__main__":
    main()
