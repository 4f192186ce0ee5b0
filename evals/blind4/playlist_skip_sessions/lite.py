"""A very small Lightning-like loop: LightningModule-style hooks, a DataModule, a Trainer."""
import torch
from torch.utils.data import DataLoader

import evalkit


class DataModule:
    def __init__(self, dataset, batch_size, num_workers, seed):
        self.dataset, self.batch_size, self.num_workers, self.seed = dataset, batch_size, num_workers, seed

    def train_dataloader(self):
        return DataLoader(self.dataset, batch_size=self.batch_size, shuffle=True, drop_last=True,
                          num_workers=self.num_workers,
                          generator=torch.Generator().manual_seed(self.seed))


class Trainer:
    def __init__(self, max_epochs):
        self.max_epochs = max_epochs
        self.meter = evalkit.Meter()
        self.logged = {}

    def log(self, name, value):
        self.logged.setdefault(name, []).append(value)

    def fit(self, module, datamodule):
        module.trainer = self
        optimizer = module.configure_optimizers()
        loader = datamodule.train_dataloader()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(loader):
                self.meter.batch(batch)
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.meter.step(loss)
                if self.meter.done():
                    break
            module.on_train_epoch_end()
            if self.meter.done():
                break
        self.meter.report(extra=self.logged)
