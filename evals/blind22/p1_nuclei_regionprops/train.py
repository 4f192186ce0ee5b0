"""Train a small nuclei counter/morphology regressor on segmented synthetic microscopy tiles."""
import argparse

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from nucleus import CountNet, NucleiTiles, build_transforms


def targets_from(batch):
    n = batch["n_objects"].float()
    valid = (torch.arange(batch["objects"].shape[1])[None, :] < batch["n_objects"][:, None]).float()
    mean_desc = (batch["objects"] * valid[..., None]).sum(1) / n.clamp(min=1)[:, None]
    return torch.cat([n[:, None] / 10.0, mean_desc], dim=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    dataset = NucleiTiles(cfg, transform=build_transforms(cfg))
    g = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=cfg["loader"]["shuffle"],
                        num_workers=cfg["loader"]["num_workers"], generator=g, drop_last=True)
    model = CountNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"],
                            weight_decay=cfg["train"]["weight_decay"])

    meter = evalkit.Meter()
    total_objects = 0
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["image"])
            loss = F.mse_loss(pred, targets_from(batch))
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            total_objects += int(batch["n_objects"].sum())
            if meter.done():
                break
        if meter.done():
            break
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    meter.report(extra={"objects_seen": total_objects})


if __name__ == "__main__":
    main()
