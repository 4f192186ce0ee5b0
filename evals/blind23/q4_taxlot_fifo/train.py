"""Classify an account's trading style from windows of FIFO tax-lot outcomes."""
import argparse
import configparser

import torch

from evalkit import Meter
from taxlots.dataset import AccountWindows, iterate_batches
from taxlots.features import NUM_FEATURES
from taxlots.model import TradeStyleTCN
from taxlots.synth import generate_jsonl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ini", default="taxlots.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.ini)
    seed = cfg["general"].getint("seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lines, labels = generate_jsonl(cfg, seed)
    d = cfg["data"]
    ds = AccountWindows(lines, labels, d.getint("window"), d.getint("num_samples"),
                        cfg["tax"].getint("long_term_days"), seed)
    tr = cfg["train"]
    model = TradeStyleTCN(NUM_FEATURES, cfg["model"].getint("hidden"))
    opt = torch.optim.Adam(model.parameters(), lr=tr.getfloat("learning_rate"))
    meter = Meter()
    step, hits, total = 0, 0, 0
    max_steps = tr.getint("max_steps")
    for epoch in range(tr.getint("epochs")):
        for x, y in iterate_batches(ds, tr.getint("batch_size"), seed, epoch):
            meter.batch((x, y))
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            hits += int((logits.argmax(-1) == y).sum())
            total += len(y)
            if step % tr.getint("log_interval") == 0:
                print(f"[epoch {epoch}] step {step}: loss={loss.item():.4f} acc={hits / total:.3f}")
            if meter.done() or step >= max_steps:
                break
        if meter.done() or step >= max_steps:
            break
    meter.report({"accuracy": hits / max(total, 1), "steps": step})


if __name__ == "__main__":
    main()
