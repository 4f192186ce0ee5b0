"""Multi-label audio tagging on precomputed clip embeddings, with lwlrap logging."""
import argparse
import tomllib

import torch
from torch.utils.data import DataLoader, TensorDataset

from evalkit import Meter
from tagging.callbacks import TaggingMetrics
from tagging.features import make_clip_features
from tagging.loop import Tagger, Trainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.toml")
    with open(ap.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["experiment"]["seed"]
    torch.manual_seed(seed)
    torch.set_num_threads(cfg["experiment"]["threads"])

    feats, labels = make_clip_features(cfg["data"], seed)
    loader = DataLoader(TensorDataset(feats, labels), batch_size=cfg["train"]["batch_size"], shuffle=True,
                        drop_last=True, generator=torch.Generator().manual_seed(seed))
    model = Tagger(cfg["data"]["embedding_dim"], cfg["model"]["hidden"], cfg["data"]["num_classes"], cfg["model"]["dropout"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    metrics = TaggingMetrics(cfg["train"]["precision_threshold"], cfg["train"]["log_every"])
    meter = Meter()
    Trainer(model, opt, [metrics], meter).fit(loader, cfg["train"]["epochs"])
    last = metrics.history[-10:]
    meter.report({
        "lwlrap_last10": sum(h["lwlrap"] for h in last) / len(last),
        "precision_last10": sum(h["precision"] for h in last) / len(last),
        "lwlrap_curve": [h["lwlrap"] for h in metrics.history],
    })


if __name__ == "__main__":
    main()
