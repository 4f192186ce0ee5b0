"""Train a fingerprint pattern-type classifier on block orientation fields."""
import argparse
import time

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from fpnet import (BlockOrientationField, Compose, FingerprintDataset, OrientationNet,
                   RandomGain, RandomShift, SobelGradients, ToTensor)


def build_loader(cfg):
    dcfg, fcfg, lcfg = cfg["data"], cfg["features"], cfg["loader"]
    transform = Compose([
        RandomShift(dcfg["max_shift"]),
        RandomGain(dcfg["max_gain"]),
        SobelGradients(),
        BlockOrientationField(block=fcfg["block_size"], var_threshold=fcfg["var_threshold"]),
        ToTensor(),
    ])
    dataset = FingerprintDataset(dcfg["num_samples"], dcfg["image_size"], dcfg["noise_std"],
                                 seed=cfg["seed"], transform=transform)
    generator = torch.Generator().manual_seed(cfg["seed"])
    return DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                      num_workers=lcfg["num_workers"], drop_last=lcfg["drop_last"],
                      generator=generator)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="fingerprint.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    loader = build_loader(cfg)
    model = OrientationNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = Meter()
    coherence_log, foreground_log = [], []
    step, t0 = 0, time.time()
    for epoch in range(cfg["optim"]["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["field"])
            loss = F.cross_entropy(logits, batch["label"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            coherence_log.append(float(batch["field"][:, 3].mean()))
            foreground_log.append(float(batch["field"][:, 4].mean()))
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                      f"coherence {coherence_log[-1]:.3f} fg {foreground_log[-1]:.3f} "
                      f"({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"mean_coherence": coherence_log, "foreground_fraction": foreground_log})


if __name__ == "__main__":
    main()
