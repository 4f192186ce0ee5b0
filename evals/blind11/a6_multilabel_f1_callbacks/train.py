"""Multi-label document tagging with per-step micro/macro F1 and Hamming loss."""
import argparse
import random
import runpy

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from mlc import DocTagDataset, LossHistory, MultiLabelMetrics, TagCollator, Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings", default="settings.py")
    args = parser.parse_args()
    cfg = runpy.run_path(args.settings)

    torch.set_num_threads(1)
    random.seed(cfg["SEED"])
    np.random.seed(cfg["SEED"])
    torch.manual_seed(cfg["SEED"])

    data = cfg["DATA"]
    dataset = DocTagDataset(data["num_docs"], data["num_features"], data["num_labels"], data["latent_dim"],
                            data["label_noise"], seed=cfg["SEED"])
    loader = DataLoader(dataset, batch_size=cfg["LOADER"]["batch_size"], shuffle=cfg["LOADER"]["shuffle"],
                        num_workers=cfg["LOADER"]["num_workers"], collate_fn=TagCollator(data["num_labels"]),
                        generator=torch.Generator().manual_seed(cfg["SEED"]))
    model = nn.Sequential(nn.Linear(data["num_features"], cfg["MODEL"]["hidden"]), nn.ReLU(),
                          nn.Dropout(cfg["MODEL"]["dropout"]), nn.Linear(cfg["MODEL"]["hidden"], data["num_labels"]))
    optimizer = torch.optim.AdamW(model.parameters(), **cfg["OPTIM"])

    metrics = MultiLabelMetrics(cfg["TRAINER"]["thresholds"], cfg["TRAINER"]["metric_window"])
    history = LossHistory()
    meter = evalkit.Meter()
    trainer = Trainer(model, optimizer, nn.BCEWithLogitsLoss(), loader, callbacks=[history, metrics],
                      epochs=cfg["TRAINER"]["epochs"], meter=meter).fit()

    last = trainer.log_history[-1]
    meter.report(extra={
        "last": last,
        "best_micro_f1@0.5": metrics.best("micro_f1@0.5"),
        "best_macro_f1@0.5": metrics.best("macro_f1@0.5"),
        "sum_hamming@0.3": sum(r["hamming@0.3"] for r in trainer.log_history),
    })


if __name__ == "__main__":
    main()
