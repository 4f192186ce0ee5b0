"""Fine-tune a char n-gram bag classifier for Arabic dialect ID."""
import argparse
import json
import random

import numpy as np
import torch

import evalkit
from dialectid.corpus import DIALECTS, make_posts
from dialectid.data import DataCollatorWithPadding, PostsDataset
from dialectid.modeling import NgramBagClassifier
from dialectid.tokenization import CharNgramTokenizer
from dialectid.trainer import Trainer, TrainingArguments


class MeterCallback:
    def __init__(self, meter):
        self.meter = meter

    def on_step_begin(self, batch):
        self.meter.batch(batch)

    def on_step_end(self, loss):
        self.meter.step(loss)
        return self.meter.done()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    cfg = json.load(open(ap.parse_args().config))
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    c, t = cfg["corpus"], cfg["tokenizer"]
    posts, labels = make_posts(c["n_posts"], cfg["seed"], c["min_words"], c["max_words"])
    tokenizer = CharNgramTokenizer(tuple(t["ngram_range"]), t["max_vocab"], t["max_length"])
    tokenizer.train(posts[: t["vocab_sample"]])

    ds = PostsDataset(posts, labels)

    def encode(example):
        enc = tokenizer(example["text"], truncation=True)
        enc["label"] = example["label"]
        return enc

    ds.set_transform(encode)
    model = NgramBagClassifier(len(tokenizer), cfg["model"]["dim"], len(DIALECTS))
    args = TrainingArguments(seed=cfg["seed"], **cfg["training"])
    meter = evalkit.Meter()
    trainer = Trainer(model, args, ds, DataCollatorWithPadding(tokenizer.pad_token_id),
                      callbacks=[MeterCallback(meter)])
    trainer.train()
    meter.report({"vocab_size": len(tokenizer)})


if __name__ == "__main__":
    main()
