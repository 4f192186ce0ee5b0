"""Fine-tune a small game-result classifier on PGN move text."""
import argparse
import json
import random

import numpy as np
import torch

import evalkit
from pgnlm.corpus import make_corpus
from pgnlm.data import DataCollatorWithPadding, PGNGameDataset
from pgnlm.modeling import GameResultClassifier
from pgnlm.tokenization import PGNTokenizer
from pgnlm.trainer import Trainer, TrainingArguments


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    games = make_corpus(cfg["corpus"], seed)
    tokenizer = PGNTokenizer.from_corpus(games, keep_variations=cfg["tokenizer"]["keep_variations"])
    print(f"{len(games)} games, vocab {len(tokenizer)}")
    dataset = PGNGameDataset(games, tokenizer, cfg["tokenizer"]["max_length"])
    model = GameResultClassifier(len(tokenizer), **cfg["model"])
    targs = TrainingArguments(seed=seed, **cfg["training"])
    meter = evalkit.Meter()
    trainer = Trainer(model, targs, dataset, DataCollatorWithPadding(tokenizer.pad_token_id), meter=meter)
    state = trainer.train()
    meter.report({"log_history": state["log_history"]})


if __name__ == "__main__":
    main()
