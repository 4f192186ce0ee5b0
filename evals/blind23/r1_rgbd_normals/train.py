"""Train a tiny RGB-D segmentation net (RGB + surface normals + depth)."""
import argparse

import torch
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from rgbd.dataset import SyntheticRGBD
from rgbd.model import TinySegNet
from rgbd.scenes import IGNORE
from rgbd.transforms import Compose, DepthToNormals, RandomHorizontalFlip, ToTensor


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    dcfg, tcfg, mcfg = cfg["data"], cfg["train"], cfg["model"]
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(tcfg["torch_threads"])

    transform = Compose([
        RandomHorizontalFlip(0.5),
        DepthToNormals(dcfg["depth_scale"], dcfg["max_depth"], dcfg["smooth_radius"]),
        ToTensor([0.45, 0.42, 0.40], [0.25, 0.25, 0.25], dcfg["depth_scale"], dcfg["max_depth"]),
    ])
    dataset = SyntheticRGBD(dcfg, transform, seed=cfg["seed"])
    gen = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=tcfg["batch_size"], shuffle=True, drop_last=True,
                        num_workers=tcfg["num_workers"], generator=gen)

    model = TinySegNet(mcfg["in_channels"], mcfg["width"], mcfg["num_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    criterion = torch.nn.CrossEntropyLoss(ignore_index=IGNORE)

    meter = Meter()
    correct = total = 0
    for epoch in range(tcfg["epochs"]):
        dataset.set_epoch(epoch)
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = criterion(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            with torch.no_grad():
                valid = labels != IGNORE
                correct += int((logits.argmax(1) == labels)[valid].sum())
                total += int(valid.sum())
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"pixel_acc": correct / max(total, 1), "epochs_started": epoch + 1})


if __name__ == "__main__":
    main()
