"""Fine-tune a small query-cost classifier on a synthetic SQL workload.

    python train.py config.json
"""
import json
import sys

import torch

from sqlcost.dataset import PadCollator, QueryDataset
from sqlcost.generator import COST_CLASSES, make_workload
from sqlcost.model import QueryCostModel
from sqlcost.trainer import Trainer, TrainingArguments
from sqlcost.vocab import SqlVocab


def compute_metrics(preds, labels):
    acc = (preds == labels).float().mean().item()
    per_class = {}
    for c, name in enumerate(COST_CLASSES):
        sel = labels == c
        per_class[name] = int(sel.sum())
    return {"accuracy": acc, "support": per_class}


def main(path):
    with open(path) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(cfg.get("torch_threads", 1))
    torch.manual_seed(seed)
    vocab = SqlVocab(cfg["data"]["ident_buckets"])
    train_ds = QueryDataset(make_workload(cfg["data"]["train_queries"], seed), vocab, cfg["data"]["max_len"], seed)
    eval_ds = QueryDataset(make_workload(cfg["data"]["eval_queries"], seed + 1), vocab, cfg["data"]["max_len"], seed + 1)
    model = QueryCostModel(len(vocab), len(COST_CLASSES), dim=cfg["model"]["dim"], pad_id=vocab.pad_id)
    args = TrainingArguments(seed=seed, **cfg["training"])
    trainer = Trainer(model, args, train_ds, eval_ds, data_collator=PadCollator(vocab.pad_id),
                      compute_metrics=compute_metrics)
    meter = trainer.train()
    metrics = trainer.evaluate()
    print("eval", metrics)
    meter.report({"eval_accuracy": metrics["accuracy"], "global_step": trainer.state["global_step"],
                  "log_history": trainer.state["log_history"]})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "config.json")
