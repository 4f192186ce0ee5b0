"""Token classification (NER) with a hand-written WordPiece tokenizer."""
import argparse
import json
import random
from dataclasses import dataclass, field
from typing import Dict, List

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit
from corpus import LABELS, build_vocab, make_corpus
from tokenization import NerTokenizer


@dataclass
class TrainArgs:
    batch_size: int = 32
    epochs: int = 3
    lr: float = 3e-3
    weight_decay: float = 0.0
    num_workers: int = 0
    log_every: int = 20


@dataclass
class Config:
    seed: int = 0
    data: Dict = field(default_factory=dict)
    model: Dict = field(default_factory=dict)
    train: TrainArgs = field(default_factory=TrainArgs)

    @classmethod
    def from_json(cls, path: str) -> "Config":
        with open(path) as fh:
            raw = json.load(fh)
        return cls(seed=raw["seed"], data=raw["data"], model=raw["model"], train=TrainArgs(**raw["train"]))


class NerDataset(Dataset):
    def __init__(self, sentences: List[dict], tokenizer: NerTokenizer):
        self.sentences = sentences
        self.tokenizer = tokenizer

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, idx: int) -> Dict[str, torch.Tensor]:
        sent = self.sentences[idx]
        enc = self.tokenizer.encode_words(sent["words"], sent["tags"])
        return {key: torch.tensor(value, dtype=torch.long) for key, value in enc.items()}


class ConvTagger(nn.Module):
    def __init__(self, vocab_size: int, n_labels: int, max_length: int, embed_dim: int, hidden: int, kernel_size: int):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.pos = nn.Embedding(max_length, embed_dim)
        self.conv1 = nn.Conv1d(embed_dim, hidden, kernel_size, padding=kernel_size // 2)
        self.conv2 = nn.Conv1d(hidden, hidden, kernel_size, padding=kernel_size // 2)
        self.head = nn.Linear(hidden, n_labels)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1]).unsqueeze(0)
        h = self.tok(input_ids) + self.pos(positions)
        h = h * attention_mask.unsqueeze(-1)
        h = torch.relu(self.conv1(h.transpose(1, 2)))
        h = torch.relu(self.conv2(h)).transpose(1, 2)
        return self.head(h)


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = Config.from_json(parser.parse_args().config)
    torch.set_num_threads(1)
    set_seed(cfg.seed)

    sentences = make_corpus(cfg.data["n_sentences"], cfg.seed)
    vocab = build_vocab(sentences)
    tokenizer = NerTokenizer(vocab, max_length=cfg.data["max_length"])
    dataset = NerDataset(sentences, tokenizer)
    loader = DataLoader(dataset, batch_size=cfg.train.batch_size, shuffle=True, drop_last=True,
                        num_workers=cfg.train.num_workers,
                        generator=torch.Generator().manual_seed(cfg.seed))

    model = ConvTagger(len(vocab), len(LABELS), cfg.data["max_length"], **cfg.model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)

    meter = evalkit.Meter()
    history = {"epoch_loss": [], "epoch_token_acc": []}
    global_step = 0
    for epoch in range(cfg.train.epochs):
        model.train()
        loss_sum, correct, total, n_batches = 0.0, 0, 0, 0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            meter.step(loss)

            with torch.no_grad():
                mask = batch["labels"] != -100
                correct += int((logits.argmax(-1)[mask] == batch["labels"][mask]).sum())
                total += int(mask.sum())
            loss_sum += loss.item()
            n_batches += 1
            global_step += 1
            if global_step % cfg.train.log_every == 0:
                print(f"epoch {epoch} step {global_step} loss {loss_sum / n_batches:.4f} acc {correct / max(total, 1):.4f}")
            if meter.done():
                break
        history["epoch_loss"].append(round(loss_sum / max(n_batches, 1), 6))
        history["epoch_token_acc"].append(round(correct / max(total, 1), 6))
        if meter.done():
            break

    meter.report(extra={**history, "global_step": global_step})


if __name__ == "__main__":
    main()
