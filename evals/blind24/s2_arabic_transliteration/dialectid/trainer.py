"""A minimal HF-style Trainer."""
from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader, RandomSampler


@dataclass
class TrainingArguments:
    per_device_train_batch_size: int = 32
    num_train_epochs: int = 1
    learning_rate: float = 1e-3
    weight_decay: float = 0.0
    seed: int = 0
    logging_steps: int = 20
    dataloader_num_workers: int = 0


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator, callbacks=None):
        self.model, self.args = model, args
        self.train_dataset, self.data_collator = train_dataset, data_collator
        self.callbacks = callbacks or []

    def get_train_dataloader(self):
        g = torch.Generator()
        g.manual_seed(self.args.seed)
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          sampler=RandomSampler(self.train_dataset, generator=g),
                          collate_fn=self.data_collator, num_workers=self.args.dataloader_num_workers,
                          drop_last=True)

    def train(self):
        loader = self.get_train_dataloader()
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.args.learning_rate,
                                weight_decay=self.args.weight_decay)
        self.model.train()
        step = 0
        for epoch in range(self.args.num_train_epochs):
            for batch in loader:
                for cb in self.callbacks:
                    cb.on_step_begin(batch)
                out = self.model(**batch)
                loss = out["loss"]
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                step += 1
                if step % self.args.logging_steps == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
                stop = False
                for cb in self.callbacks:
                    stop |= bool(cb.on_step_end(loss))
                if stop:
                    return step
        return step
