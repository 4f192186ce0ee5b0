"""Classify folk tunes (reel, jig, hornpipe, ...) from their ABC notation.

    python train.py tunes_config.json
"""
import json
import sys

import torch

from abcnotes import ABCTokenizer
from abcnotes.corpus import TUNE_TYPES, build_corpus
from abcnotes.dataset import PadCollator, TuneTypeDataset
from abcnotes.modeling import TuneCNNForSequenceClassification
from abcnotes.trainer import Trainer, TrainingArguments
from evalkit import Meter


def main(config_path):
    with open(config_path) as fh:
        config = json.load(fh)
    torch.manual_seed(config["seed"])

    kinds, texts = build_corpus(config["seed"], **config["corpus"])
    label_names = sorted(TUNE_TYPES)
    tokenizer = ABCTokenizer(max_length=config["tokenizer"]["max_length"])
    train_dataset = TuneTypeDataset(texts, kinds, tokenizer, label_names)
    print(f"{len(train_dataset)} tunes, vocab {len(tokenizer)}, labels {label_names}")

    model = TuneCNNForSequenceClassification(len(tokenizer), len(label_names),
                                             pad_token_id=tokenizer.pad_token_id, **config["model"])
    args = TrainingArguments(seed=config["seed"], **config["training"])
    meter = Meter()
    trainer = Trainer(model=model, args=args, train_dataset=train_dataset,
                      data_collator=PadCollator(tokenizer.pad_token_id), meter=meter)
    result = trainer.train()
    meter.report({"global_step": result["global_step"],
                  "train_accuracy": round(result["train_accuracy"], 4),
                  "final_lr": trainer.lr_scheduler.get_last_lr()[0]})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tunes_config.json")
