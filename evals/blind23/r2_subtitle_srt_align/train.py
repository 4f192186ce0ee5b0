"""Subtitle genre classification from raw SRT files."""
import argparse
import json

import torch

from evalkit import Meter
from srtgenre.corpus import build_corpus
from srtgenre.data import DataCollatorWithPadding, SubtitleGenreDataset, preprocess
from srtgenre.modeling import BagOfWordsGenreClassifier
from srtgenre.tokenization import WordTokenizer
from srtgenre.trainer import Trainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["training"]["torch_threads"])
    pre = cfg["preprocessing"]

    docs, labels = build_corpus(cfg["corpus"], cfg["seed"])
    tokenizer = WordTokenizer.train((" ".join(preprocess(d, pre)[1]) for d in docs), pre["min_frequency"])
    dataset = SubtitleGenreDataset(docs, labels, tokenizer, pre)

    m = cfg["model"]
    model = BagOfWordsGenreClassifier(len(tokenizer), m["embedding_dim"], m["hidden_dim"], m["num_features"],
                                      cfg["corpus"]["num_genres"], tokenizer.pad_token_id)
    train_args = dict(cfg["training"], seed=cfg["seed"])
    meter = Meter()
    trainer = Trainer(model, train_args, dataset, DataCollatorWithPadding(tokenizer.pad_token_id), meter=meter)
    trainer.train()
    meter.report({"vocab_size": len(tokenizer), "log_history": trainer.log_history})


if __name__ == "__main__":
    main()
