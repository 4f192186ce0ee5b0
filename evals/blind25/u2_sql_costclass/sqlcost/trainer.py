"""A trimmed-down Trainer in the style of transformers.Trainer."""
import math
from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader

from evalkit import Meter


@dataclass
class TrainingArguments:
    output_dir: str = "out"
    num_train_epochs: int = 1
    per_device_train_batch_size: int = 32
    per_device_eval_batch_size: int = 64
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    warmup_ratio: float = 0.0
    max_grad_norm: float = 1.0
    logging_steps: int = 20
    seed: int = 0
    dataloader_num_workers: int = 0


class Trainer:
    def __init__(self, model, args, train_dataset, eval_dataset=None, data_collator=None, compute_metrics=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.eval_dataset = eval_dataset
        self.data_collator = data_collator
        self.compute_metrics = compute_metrics
        self.state = {"global_step": 0, "log_history": []}

    def get_train_dataloader(self):
        g = torch.Generator().manual_seed(self.args.seed)
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size, shuffle=True,
                          collate_fn=self.data_collator, num_workers=self.args.dataloader_num_workers,
                          generator=g, drop_last=True)

    def get_eval_dataloader(self):
        return DataLoader(self.eval_dataset, batch_size=self.args.per_device_eval_batch_size,
                          collate_fn=self.data_collator, num_workers=self.args.dataloader_num_workers)

    def create_optimizer_and_scheduler(self, num_training_steps):
        decay = [p for n, p in self.model.named_parameters() if p.ndim > 1]
        no_decay = [p for n, p in self.model.named_parameters() if p.ndim <= 1]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": self.args.weight_decay},
             {"params": no_decay, "weight_decay": 0.0}], lr=self.args.learning_rate)
        warmup = int(math.ceil(num_training_steps * self.args.warmup_ratio))

        def lr_lambda(step):
            if step < warmup:
                return float(step + 1) / float(max(1, warmup))
            return max(0.0, float(num_training_steps - step) / float(max(1, num_training_steps - warmup)))

        self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda)

    def compute_loss(self, model, inputs):
        return model(**inputs)["loss"]

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        loss.backward()
        return loss.detach()

    def train(self):
        loader = self.get_train_dataloader()
        total = len(loader) * self.args.num_train_epochs
        self.create_optimizer_and_scheduler(total)
        meter = Meter()
        tr_loss = 0.0
        for epoch in range(self.args.num_train_epochs):
            for inputs in loader:
                meter.batch(inputs)
                loss = self.training_step(self.model, inputs)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                self.optimizer.step()
                self.lr_scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
                meter.step(loss)
                tr_loss += float(loss)
                self.state["global_step"] += 1
                if self.state["global_step"] % self.args.logging_steps == 0:
                    log = {"loss": tr_loss / self.args.logging_steps, "epoch": epoch,
                           "learning_rate": self.lr_scheduler.get_last_lr()[0]}
                    self.state["log_history"].append(log)
                    print(log)
                    tr_loss = 0.0
                if meter.done():
                    break
            if meter.done():
                break
        return meter

    def evaluate(self):
        self.model.eval()
        preds, labels = [], []
        with torch.no_grad():
            for inputs in self.get_eval_dataloader():
                out = self.model(**inputs)
                preds.append(out["logits"].argmax(-1))
                labels.append(inputs["labels"])
        self.model.train()
        return self.compute_metrics(torch.cat(preds), torch.cat(labels))
