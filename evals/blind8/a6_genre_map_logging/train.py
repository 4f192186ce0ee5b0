"""Multi-label genre tagger with running mAP / top-k / F1 logging.

    python train.py --config configs/genre_mlp.py
"""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from tagger.config import load_py_config
from tagger.data import make_movies
from tagger.metrics import RunningTagMetrics
from tagger.model import GenreTagger


def build_optimizer(cfg, params):
    kwargs = dict(vars(cfg))
    opt_cls = getattr(torch.optim, kwargs.pop("type"))
    return opt_cls(params, **kwargs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = load_py_config(ap.parse_args().config)

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    d = cfg.data
    dataset = make_movies(d.num_movies, d.embed_dim, d.num_genres, d.label_noise, cfg.seed)
    loader = DataLoader(dataset, batch_size=cfg.train.batch_size, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(cfg.seed + 1))
    model = GenreTagger(d.embed_dim, cfg.model.hidden, d.num_genres, cfg.model.dropout)
    optimizer = build_optimizer(cfg.optimizer, model.parameters())
    m = cfg.metrics
    running = RunningTagMetrics(d.num_genres, m.window, m.topk, m.threshold, m.loss_median_window)

    meter = evalkit.Meter()
    log = []
    step = 0
    for epoch in range(cfg.train.epochs):
        model.train()
        for x, y in loader:
            meter.batch((x, y))
            logits = model(x)
            loss = F.binary_cross_entropy_with_logits(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1

            running.update(torch.sigmoid(logits.detach()), y, loss.item())
            stats = running.compute()
            log.append({"step": step, "mAP": stats["mAP"], "top_hit": stats[f"top{m.topk}_hit"],
                        "micro_f1": stats["micro_f1"], "macro_f1": stats["macro_f1"],
                        "median_loss": stats["median_loss"]})
            if step % cfg.train.log_interval == 0:
                print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                               for k, v in log[-1].items()), flush=True)
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"log": log, "final_per_class_ap": stats["per_class_ap"]})


if __name__ == "__main__":
    main()
