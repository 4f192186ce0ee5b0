"""Predict a household's registration district from phonetically standardised names."""
import argparse
import json
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from genealogy import HouseholdGenerator, NameTokenizer, PaddingCollator, PhoneticVocab
from genealogy.tokenization import phonetic_tokens


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 32
    dataloader_num_workers: int = 0
    num_train_epochs: int = 1
    max_steps: int = -1
    learning_rate: float = 1e-3
    embedding_dim: int = 64
    logging_steps: int = 20


class HouseholdDataset(Dataset):
    def __init__(self, households, tokenizer):
        self.households = households
        self.tokenizer = tokenizer

    def __len__(self):
        return len(self.households)

    def __getitem__(self, idx):
        hh = self.households[idx]
        features = self.tokenizer(hh)
        features["labels"] = hh.region
        return features


class BagOfCodes(nn.Module):
    def __init__(self, vocab_size, dim, num_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, num_labels))

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        return self.head(pooled)


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, seed):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.seed = seed
        self.meter = Meter()
        self.unk_per_step = []

    def get_train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size, shuffle=True,
                          num_workers=self.args.dataloader_num_workers, collate_fn=self.data_collator,
                          generator=torch.Generator().manual_seed(self.seed), drop_last=True)

    def compute_loss(self, model, inputs):
        logits = model(inputs["input_ids"], inputs["attention_mask"])
        return F.cross_entropy(logits, inputs["labels"])

    def train(self, unk_id):
        args = self.args
        loader = self.get_train_dataloader()
        optimizer = torch.optim.Adam(self.model.parameters(), lr=args.learning_rate)
        total = len(loader) * args.num_train_epochs if args.max_steps < 0 else args.max_steps
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
        global_step = 0
        self.model.train()
        for epoch in range(args.num_train_epochs):
            for inputs in loader:
                self.meter.batch(inputs)
                loss = self.compute_loss(self.model, inputs)
                loss.backward()
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                self.meter.step(loss)
                self.unk_per_step.append(int((inputs["input_ids"] == unk_id).sum()))
                global_step += 1
                if global_step % args.logging_steps == 0:
                    print(json.dumps({"epoch": epoch, "step": global_step, "loss": round(loss.item(), 4)}), flush=True)
                if self.meter.done() or global_step >= total:
                    self.meter.report(extra={"unk_tokens_per_step": self.unk_per_step})
                    return
        self.meter.report(extra={"unk_tokens_per_step": self.unk_per_step})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cli = parser.parse_args()
    with open(cli.config) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    data, tok = cfg["data"], cfg["tokenizer"]
    gen = HouseholdGenerator(data["num_regions"], data["variants_per_name"], seed=cfg["seed"])
    households = gen.households(data["num_households"], data["persons_per_household"],
                                data["given_names_per_person"], seed=cfg["seed"] + 1)
    vocab = PhoneticVocab.from_reference_index(gen.surnames, gen.given_names, tok["codes"],
                                               tok["metaphone_max_len"], phonetic_tokens)
    tokenizer = NameTokenizer(vocab, tok["codes"], tok["metaphone_max_len"], tok["add_role_tokens"])
    args = TrainingArguments(**cfg["training"])
    model = BagOfCodes(len(vocab), args.embedding_dim, data["num_regions"])
    trainer = Trainer(model, args, HouseholdDataset(households, tokenizer), PaddingCollator(vocab.pad_id), cfg["seed"])
    trainer.train(vocab.unk_id)


if __name__ == "__main__":
    main()
