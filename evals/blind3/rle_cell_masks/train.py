import argparse
import configparser

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from dataset import CLASSES, CellSegmentation, synth_cells
from unet import TinyUNet


def mean_iou(logits, target, num_classes):
    pred = logits.argmax(1)
    ious = []
    for c in range(1, num_classes):
        inter = ((pred == c) & (target == c)).sum().item()
        union = ((pred == c) | (target == c)).sum().item()
        if union:
            ious.append(inter / union)
    return sum(ious) / len(ious) if ious else 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/cells.ini")
    args = parser.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    data_cfg, train_cfg = cfg["data"], cfg["train"]

    torch.set_num_threads(1)
    torch.manual_seed(data_cfg.getint("seed"))
    images, annotations = synth_cells(data_cfg)
    dataset = CellSegmentation(images, annotations, data_cfg.getfloat("hflip_prob"), data_cfg.getint("seed"))
    sampler_gen = torch.Generator().manual_seed(data_cfg.getint("seed") + 1)
    loader = DataLoader(dataset, batch_size=train_cfg.getint("batch_size"), shuffle=True,
                        generator=sampler_gen, drop_last=True)

    model = TinyUNet(cfg["model"].getint("base_channels"), len(CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=train_cfg.getfloat("lr"))
    meter = evalkit.Meter()
    ious = []
    it = 0
    for epoch in range(train_cfg.getint("epochs")):
        for image, target in loader:
            meter.batch({"image": image, "mask": target})
            logits = model(image)
            loss = F.cross_entropy(logits, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            it += 1
            if it % train_cfg.getint("log_interval") == 0:
                miou = mean_iou(logits.detach(), target, len(CLASSES))
                ious.append(round(miou, 6))
                print(f"[{epoch}] it {it} loss {loss.item():.4f} mIoU {miou:.3f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"miou": ious})


if __name__ == "__main__":
    main()
