import argparse
import importlib.util

import torch
from torch.utils.data import DataLoader

from chroma.collate import collate_runs
from chroma.model import TracePeakNet
from chroma.runs import ChromatogramRuns
from evalkit import Meter


def load_config(path):
    spec = importlib.util.spec_from_file_location("run_config", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CONFIG


class Callbacks:
    def __init__(self, every):
        self.every = every

    def on_step_end(self, step, loss):
        if step % self.every == 0:
            print(f"step {step:4d}  loss {loss:.4f}")

    def on_epoch_end(self, epoch, correct, total):
        print(f"epoch {epoch}: train acc {correct / total:.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.py")
    cfg = load_config(ap.parse_args().config)
    torch.manual_seed(cfg.data.seed)
    torch.set_num_threads(cfg.train.threads)

    runs = ChromatogramRuns(cfg.data)
    loader = DataLoader(runs, batch_size=cfg.train.batch_size, shuffle=True, num_workers=0,
                        collate_fn=collate_runs, generator=torch.Generator().manual_seed(cfg.data.seed))
    model = TracePeakNet(cfg.data.n_classes)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.train.lr)
    cb = Callbacks(cfg.train.log_every)
    meter = Meter()
    step = 0
    for epoch in range(cfg.train.epochs):
        correct = total = 0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["trace"], batch["peaks"], batch["peak_mask"])
            loss = torch.nn.functional.cross_entropy(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            correct += (logits.argmax(1) == batch["label"]).sum().item()
            total += len(batch["label"])
            cb.on_step_end(step, loss.item())
            if meter.done():
                break
        cb.on_epoch_end(epoch, correct, total)
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
