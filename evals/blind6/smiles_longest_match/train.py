import argparse
import math
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, Dataset

import evalkit
from chemtok import SmilesTokenizer, build_vocab, make_corpus


class SmilesDataset(Dataset):
    def __init__(self, smiles, props, tokenizer):
        self.smiles = smiles
        self.props = props
        self.tokenizer = tokenizer

    def __len__(self):
        return len(self.smiles)

    def __getitem__(self, idx):
        ids, mask = self.tokenizer.encode(self.smiles[idx])
        return {
            "input_ids": torch.tensor(ids, dtype=torch.long),
            "attention_mask": torch.tensor(mask, dtype=torch.long),
            "labels": torch.tensor(self.props[idx], dtype=torch.float32),
        }


class SmilesCNN(nn.Module):
    def __init__(self, vocab_size, d_embed, channels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_embed, padding_idx=0)
        self.conv1 = nn.Conv1d(d_embed, channels, 3, padding=1)
        self.conv2 = nn.Conv1d(channels, channels, 3, padding=1)
        self.head = nn.Sequential(nn.Linear(channels, channels), nn.ReLU(), nn.Linear(channels, 1))

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids).transpose(1, 2)
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        m = attention_mask.unsqueeze(1).float()
        pooled = (x * m).sum(-1) / m.sum(-1)
        return self.head(pooled).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    smiles, props = make_corpus(cfg["data"]["n_molecules"], cfg["seed"])
    mean = sum(props) / len(props)
    props = [p - mean for p in props]
    tokenizer = SmilesTokenizer(build_vocab(), cfg["data"]["max_len"])
    dataset = SmilesDataset(smiles, props, tokenizer)
    g = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True, generator=g,
                        num_workers=0, drop_last=True)

    model = SmilesCNN(len(tokenizer.vocab), cfg["model"]["d_embed"], cfg["model"]["channels"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"], weight_decay=0.01)
    loss_fn = nn.MSELoss()
    meter = evalkit.Meter()

    history = []
    global_step = 0
    max_steps = cfg["train"]["max_steps"]
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        running = 0.0
        for batch in loader:
            meter.batch(batch)
            optimizer.zero_grad()
            pred = model(batch["input_ids"], batch["attention_mask"])
            loss = loss_fn(pred, batch["labels"])
            loss.backward()
            optimizer.step()
            meter.step(loss)
            global_step += 1
            running += loss.item()
            if global_step % cfg["train"]["log_every"] == 0:
                history.append(round(math.sqrt(running / cfg["train"]["log_every"]), 6))
                print(f"epoch {epoch} step {global_step} rmse {history[-1]:.4f}", flush=True)
                running = 0.0
            if meter.done() or global_step >= max_steps:
                break
        if meter.done() or global_step >= max_steps:
            break
    meter.report(extra={"rmse_log": history, "vocab_size": len(tokenizer.vocab)})


if __name__ == "__main__":
    main()
