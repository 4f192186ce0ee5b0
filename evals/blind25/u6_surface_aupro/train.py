"""Anomaly segmentation on synthetic surface images, with a per-step AUPRO monitor.

    python train.py -c config.yaml
"""
import argparse

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from anomseg.engine import Engine, ProgressPrinter, PROMonitor
from anomseg.model import TinySegNet
from anomseg.surfaces import SurfaceDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="config.yaml")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.set_num_threads(cfg["run"]["intra_op_threads"])
    torch.manual_seed(cfg["run"]["seed"])
    d = cfg["data"]
    ds = SurfaceDataset(d["images"], d["size"], d["defect_rate"], cfg["run"]["seed"])
    loader = DataLoader(ds, batch_size=d["batch_size"], shuffle=True, num_workers=0, drop_last=True,
                        generator=torch.Generator().manual_seed(cfg["run"]["seed"]))
    model = TinySegNet(cfg["model"]["width"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    pos_weight = torch.tensor(cfg["optim"]["pos_weight"])

    def loss_fn(logits, masks):
        return F.binary_cross_entropy_with_logits(logits, masks, pos_weight=pos_weight)

    m = cfg["metric"]
    n = m["n_thresholds"]
    thresholds = [(i + 1) / (n + 1) for i in range(n)]
    pro = PROMonitor(thresholds, m["max_fpr"])
    engine = Engine(model, opt, loss_fn, callbacks=[pro, ProgressPrinter(m["log_every"])])
    meter = engine.fit(loader, cfg["optim"]["epochs"])
    meter.report({"aupro_per_step": pro.history, "final_aupro": pro.history[-1] if pro.history else None})


if __name__ == "__main__":
    main()
