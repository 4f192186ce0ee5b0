"""A small callback-driven fit loop."""
import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

from .model import hazard_nll


class Callback:
    def on_batch_start(self, loop, batch):
        pass

    def on_batch_end(self, loop, batch, logits, loss):
        pass

    def on_epoch_end(self, loop, epoch):
        pass


class FitLoop:
    def __init__(self, model, dataset, batch_size, epochs, lr, weight_decay, seed, callbacks=()):
        self.model, self.epochs = model, epochs
        g = torch.Generator().manual_seed(seed)
        sampler = BatchSampler(RandomSampler(dataset, generator=g), batch_size, drop_last=True)
        self.loader = DataLoader(dataset, sampler=sampler, batch_size=None, num_workers=0)
        self.opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
        self.callbacks = list(callbacks)
        self.should_stop = False
        self.global_step = 0

    def run(self):
        for epoch in range(self.epochs):
            self.model.train()
            for batch in self.loader:
                for cb in self.callbacks:
                    cb.on_batch_start(self, batch)
                logits = self.model(batch["x"])
                loss = hazard_nll(logits, batch["bin"], batch["event"])
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_batch_end(self, batch, logits, loss)
                if self.should_stop:
                    return
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch)
