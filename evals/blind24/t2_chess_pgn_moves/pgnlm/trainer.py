"""A small Trainer in the spirit of transformers.Trainer."""
from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 32
    num_train_epochs: int = 1
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    logging_steps: int = 10
    dataloader_num_workers: int = 0
    seed: int = 0


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, meter=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.meter = meter
        self.state = {"global_step": 0, "log_history": []}

    def get_train_dataloader(self):
        g = torch.Generator().manual_seed(self.args.seed)
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          shuffle=True, collate_fn=self.data_collator, generator=g,
                          num_workers=self.args.dataloader_num_workers, drop_last=True)

    def create_optimizer(self):
        decay = [p for n, p in self.model.named_parameters() if p.ndim > 1]
        no_decay = [p for n, p in self.model.named_parameters() if p.ndim <= 1]
        return torch.optim.AdamW([{"params": decay, "weight_decay": self.args.weight_decay},
                                  {"params": no_decay, "weight_decay": 0.0}],
                                 lr=self.args.learning_rate)

    def compute_loss(self, model, inputs):
        return model(**inputs)["loss"]

    def train(self):
        loader = self.get_train_dataloader()
        opt = self.create_optimizer()
        self.model.train()
        running = 0.0
        for epoch in range(self.args.num_train_epochs):
            for inputs in loader:
                if self.meter is not None:
                    self.meter.batch(inputs)
                loss = self.compute_loss(self.model, inputs)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.state["global_step"] += 1
                running += loss.item()
                if self.meter is not None:
                    self.meter.step(loss)
                if self.state["global_step"] % self.args.logging_steps == 0:
                    avg = running / self.args.logging_steps
                    self.state["log_history"].append({"epoch": epoch, "step": self.state["global_step"], "loss": avg})
                    print(f"{{'loss': {avg:.4f}, 'epoch': {epoch}, 'step': {self.state['global_step']}}}")
                    running = 0.0
                if self.meter is not None and self.meter.done():
                    return self.state
        return self.state
