"""Address suffix classifier on hashed character n-grams, trained with a small HF-style Trainer."""
import argparse
import json
import time
from dataclasses import dataclass, field

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from addrtok import AddressGenerator, HashedNgramTokenizer
from evalkit import Meter


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 32
    num_train_epochs: int = 1
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    logging_steps: int = 50
    dataloader_num_workers: int = 0
    seed: int = 0
    log_history: list = field(default_factory=list)


class AddressDataset(Dataset):
    def __init__(self, records, tokenizer):
        self.records = records
        self.tokenizer = tokenizer

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        text, label = self.records[idx]
        enc = self.tokenizer(text, truncation=True)
        return {"text": torch.tensor(enc["input_ids"], dtype=torch.long), "label": label}


class DataCollatorForBags:
    """fastText / torchtext style: one flat id tensor plus the offset where each address starts."""

    def __call__(self, features):
        lengths = [len(f["text"]) for f in features]
        offsets = torch.tensor([0] + lengths[:-1], dtype=torch.long).cumsum(0)
        text = torch.cat([f["text"] for f in features])
        label = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return {"label": label, "text": text, "offsets": offsets}


class NgramBagClassifier(nn.Module):
    def __init__(self, num_buckets, embed_dim, hidden_dim, num_labels):
        super().__init__()
        self.embed = nn.EmbeddingBag(num_buckets, embed_dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(embed_dim, hidden_dim), nn.GELU(),
                                 nn.Linear(hidden_dim, num_labels))

    def forward(self, text, offsets, label=None):
        logits = self.mlp(self.embed(text, offsets))
        loss = nn.functional.cross_entropy(logits, label) if label is not None else None
        return loss, logits


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.meter = meter
        self.state = {"global_step": 0, "correct": 0, "seen": 0}

    def get_train_dataloader(self):
        g = torch.Generator()
        g.manual_seed(self.args.seed)
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          shuffle=True, collate_fn=self.data_collator, generator=g,
                          num_workers=self.args.dataloader_num_workers, drop_last=True)

    def create_optimizer(self):
        return torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate,
                                 weight_decay=self.args.weight_decay)

    def training_step(self, batch, optimizer):
        self.model.train()
        loss, logits = self.model(**batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        self.state["correct"] += int((logits.argmax(-1) == batch["label"]).sum())
        self.state["seen"] += len(batch["label"])
        return loss.detach()

    def train(self):
        loader = self.get_train_dataloader()
        optimizer = self.create_optimizer()
        t0 = time.time()
        for epoch in range(self.args.num_train_epochs):
            for batch in loader:
                if self.meter is not None:
                    self.meter.batch(batch)
                loss = self.training_step(batch, optimizer)
                self.state["global_step"] += 1
                if self.meter is not None:
                    self.meter.step(loss)
                if self.state["global_step"] % self.args.logging_steps == 0:
                    entry = {"epoch": epoch, "step": self.state["global_step"],
                             "loss": round(float(loss), 4), "elapsed": round(time.time() - t0, 1)}
                    print(entry, flush=True)
                if self.meter is not None and self.meter.done():
                    return self.state
        return self.state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cli = ap.parse_args()
    with open(cli.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    args = TrainingArguments(seed=cfg["seed"], **cfg["training"])
    tok = HashedNgramTokenizer(**cfg["tokenizer"])
    records = AddressGenerator(cfg["seed"], cfg["data"]["noise_rate"]).generate(
        cfg["data"]["num_addresses"])
    num_labels = 1 + max(label for _, label in records)
    model = NgramBagClassifier(tok.num_buckets, cfg["model"]["embed_dim"],
                               cfg["model"]["hidden_dim"], num_labels)
    meter = Meter()
    trainer = Trainer(model, args, AddressDataset(records, tok), DataCollatorForBags(),
                      meter=meter)
    state = trainer.train()
    meter.report(extra={"train_accuracy": state["correct"] / max(state["seen"], 1),
                        "seen": state["seen"]})


if __name__ == "__main__":
    main()
