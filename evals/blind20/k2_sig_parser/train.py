"""Slot-filling model for prescription directions ("sig" lines).

    python train.py sig.json
"""
import json
import sys
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from sig import SigCorpus, SigTokenizer, build_vocab, make_drug_names
from sig.data import DataCollatorWithPadding, SigDataset
from sig.model import SigSlotModel


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 16
    num_train_epochs: int = 1
    learning_rate: float = 1e-3
    dataloader_num_workers: int = 0
    logging_steps: int = 50
    seed: int = 0
    log_history: list = field(default_factory=list)


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.meter = meter
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
        self.global_step = 0

    def get_train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          shuffle=True, collate_fn=self.data_collator,
                          num_workers=self.args.dataloader_num_workers,
                          generator=torch.Generator().manual_seed(self.args.seed))

    def compute_loss(self, model, inputs):
        route_logits, freq_logits, prn_logits = model(inputs["input_ids"], inputs["attention_mask"],
                                                      inputs["slot_values"])
        labels = inputs["labels"]
        return (F.cross_entropy(route_logits, labels[:, 0]) + F.cross_entropy(freq_logits, labels[:, 1])
                + F.binary_cross_entropy_with_logits(prn_logits, labels[:, 2].float()))

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss.backward()
        return loss.detach()

    def train(self):
        loader = self.get_train_dataloader()
        running = 0.0
        for epoch in range(self.args.num_train_epochs):
            for inputs in loader:
                self.meter.batch(inputs)
                loss = self.training_step(self.model, inputs)
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.meter.step(loss)
                self.global_step += 1
                running += loss.item()
                if self.global_step % self.args.logging_steps == 0:
                    entry = {"epoch": epoch, "step": self.global_step, "loss": running / self.args.logging_steps}
                    self.args.log_history.append(entry)
                    print(entry, flush=True)
                    running = 0.0
                if self.meter.done():
                    return


def main():
    with open(sys.argv[1] if len(sys.argv) > 1 else "sig.json") as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    drugs = make_drug_names(cfg["data"]["num_drugs"], cfg["seed"])
    tokenizer = SigTokenizer(build_vocab(drugs), **cfg["tokenizer"])
    corpus = SigCorpus(cfg["data"]["num_train"], drugs, cfg["seed"] + 1)
    train_dataset = SigDataset(corpus, tokenizer, cfg["data"]["max_length"])

    model = SigSlotModel(len(tokenizer), cfg["model"]["embed_dim"], cfg["model"]["hidden_dim"])
    args = TrainingArguments(seed=cfg["seed"], **cfg["training"])
    meter = Meter()
    trainer = Trainer(model, args, train_dataset, DataCollatorWithPadding(tokenizer.pad_token_id), meter)
    trainer.train()
    meter.report(extra={"global_step": trainer.global_step, "log_history": args.log_history})


if __name__ == "__main__":
    main()
