"""Intent classification on a search-query log, with spelling-corrected query terms."""
import argparse
import json

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from queryproc import (DataCollatorWithPadding, QueryLogDataset, QueryTokenizer, build_query_log,
                       build_vocabulary)


class BagOfTermsClassifier(nn.Module):
    def __init__(self, vocab_size, dim, num_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, num_labels))

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.proj(pooled)


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter):
        self.model = model
        self.args = args
        self.meter = meter
        g = torch.Generator().manual_seed(args["seed"])
        self.loader = DataLoader(train_dataset, batch_size=args["batch_size"], shuffle=True, generator=g,
                                 collate_fn=data_collator, num_workers=args["num_workers"], drop_last=True)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args["learning_rate"])
        self.loss_fn = nn.CrossEntropyLoss()
        self.state = {"global_step": 0, "unk_terms": 0, "log_history": []}

    def training_step(self, batch):
        logits = self.model(batch["input_ids"], batch["attention_mask"])
        loss = self.loss_fn(logits, batch["labels"])
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def train(self):
        for epoch in range(self.args["num_epochs"]):
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.meter.step(loss)
                self.state["global_step"] += 1
                self.state["unk_terms"] += int((batch["input_ids"] == 1).sum())
                if self.state["global_step"] % self.args["logging_steps"] == 0:
                    self.state["log_history"].append(round(loss.item(), 6))
                    print(f"step {self.state['global_step']} loss {loss.item():.4f}", flush=True)
                if self.meter.done():
                    return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    vocab = build_vocabulary(cfg["corpus"]["vocab_size"], rng)
    queries, intents = build_query_log(vocab, cfg["corpus"], rng)
    tok_cfg = cfg["tokenizer"]
    tokenizer = QueryTokenizer(vocab, tok_cfg["max_edit_distance"], tok_cfg["max_length"], tok_cfg["lowercase"])
    dataset = QueryLogDataset(queries, intents, tokenizer)
    model = BagOfTermsClassifier(len(vocab) + 2, cfg["training"]["embedding_dim"], cfg["corpus"]["num_intents"])
    meter = evalkit.Meter()
    trainer = Trainer(model, dict(cfg["training"], seed=cfg["seed"]), dataset,
                      DataCollatorWithPadding(tokenizer.pad_token_id), meter)
    trainer.train()
    meter.report(extra={"unk_terms": trainer.state["unk_terms"], "log_history": trainer.state["log_history"]})


if __name__ == "__main__":
    main()
