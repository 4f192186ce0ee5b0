"""Train the bearing-fault MLP with PyTorch Lightning (closure-style optimizer step)."""
import argparse
import random
import warnings

import lightning as L
import numpy as np
import torch
import yaml
from torch import nn

import evalkit
from data import VibrationData


class FaultClassifier(L.LightningModule):
    def __init__(self, n_features, hidden, n_classes, lr, meter):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(n_features),
            nn.Linear(n_features, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )
        self.loss_fn = nn.CrossEntropyLoss()
        self.lr = lr
        self.meter = meter

    def training_step(self, batch, batch_index):
        feats, labels = batch
        self.meter.batch((feats, labels))
        return self.loss_fn(self.net(feats), labels)

    def on_train_batch_end(self, outputs, batch, batch_index):
        self.meter.step(outputs["loss"])
        if self.meter.done():
            self.trainer.should_stop = True

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    # Lightning suggests more workers; the eval measures exactly that choice.
    warnings.filterwarnings("ignore", ".*does not have many workers.*")

    data = VibrationData(cfg["data"], seed)
    meter = evalkit.Meter()
    model = FaultClassifier(data.dataset.n_features, cfg["model"]["hidden"], cfg["data"]["n_classes"],
                            cfg["optim"]["lr"], meter)
    trainer = L.Trainer(max_steps=cfg["train"]["max_steps"], accelerator="cpu", devices=1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, datamodule=data)
    meter.report()


if __name__ == "__main__":
    main()
