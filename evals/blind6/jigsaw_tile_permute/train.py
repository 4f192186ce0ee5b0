import argparse

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from jigsaw_data import JigsawPuzzles, make_textures, permutation_set


def get_args():
    parser = argparse.ArgumentParser(description="jigsaw pretext training")
    parser.add_argument("--config", default="jigsaw.yaml")
    parser.add_argument("--lr", type=float)
    parser.add_argument("--batch-size", type=int)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    for k, v in vars(args).items():
        if v is not None and k != "config":
            cfg[k.replace("-", "_")] = v
    return cfg


class TileSiamese(nn.Module):
    def __init__(self, n_tiles, n_perms):
        super().__init__()
        self.n_tiles = n_tiles
        # shared tile encoder (tiny: a strided conv "patch embedding" and an MLP)
        self.tile_net = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2), nn.ReLU(), nn.Flatten(),
                                      nn.Linear(8 * 8 * 8, 32), nn.ReLU())
        self.classifier = nn.Linear(32 * n_tiles, n_perms)

    def forward(self, tiles):  # B, 9, 1, t, t
        b = tiles.shape[0]
        feats = self.tile_net(tiles.flatten(0, 1)).view(b, -1)
        return self.classifier(feats)


def main():
    cfg = get_args()
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    images = make_textures(cfg["num_images"], cfg["image_size"], cfg["seed"])
    perms = permutation_set(cfg["grid"] ** 2, cfg["num_permutations"], cfg["seed"])
    dataset = JigsawPuzzles(images, cfg["grid"], cfg["tile_size"], perms, cfg["seed"] + 1)
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=True, drop_last=False,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = TileSiamese(cfg["grid"] ** 2, len(perms))
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    criterion = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    acc_hist = []
    global_step = 0
    for epoch in range(cfg["epochs"]):
        n_correct = n_seen = 0
        for i, (tiles, labels) in enumerate(loader):
            meter.batch((tiles, labels))
            out = model(tiles)
            loss = criterion(out, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            global_step += 1
            n_correct += (out.argmax(1) == labels).sum().item()
            n_seen += len(labels)
            if i % cfg["log_freq"] == 0:
                print(f"Epoch: [{epoch}][{i}/{len(loader)}]  Loss {loss.item():.4f}  Acc {n_correct / n_seen:.3f}",
                      flush=True)
            if meter.done():
                break
        acc_hist.append(round(n_correct / max(n_seen, 1), 6))
        if meter.done():
            break
    meter.report(extra={"epoch_acc": acc_hist, "steps": global_step})


if __name__ == "__main__":
    main()
