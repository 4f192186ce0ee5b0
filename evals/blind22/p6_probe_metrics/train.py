"""Linear probe on frozen features: 100 classes, per-step metrics logged by a callback."""
import argparse
import importlib.util

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

import evalkit
from callbacks import ClassificationMetrics
from data import FeatureBank, superclass_table


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ProbeTrainer:
    def __init__(self, model, optimizer, callbacks, meter, epochs):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = callbacks
        self.meter = meter
        self.epochs = epochs
        self.global_step = 0

    def fit(self, loader):
        for _ in range(self.epochs):
            for batch_idx, batch in enumerate(loader):
                self.meter.batch(batch)
                logits = self.model(batch["features"])
                loss = F.cross_entropy(logits, batch["label"])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                outputs = {"loss": loss, "logits": logits}
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, outputs, batch, batch_idx)
                self.meter.step(loss)
                self.global_step += 1
                if self.meter.done():
                    return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    s = load_settings(ap.parse_args().settings)
    torch.set_num_threads(1)
    torch.manual_seed(s.SEED)
    coarse_of = superclass_table(s.NUM_CLASSES, s.NUM_SUPERCLASSES, s.SEED)
    bank = FeatureBank(s.TRAIN_SIZE, s.FEATURE_DIM, s.NUM_CLASSES, coarse_of, s.CLASS_SEPARATION, s.SEED)
    sampler = BatchSampler(RandomSampler(bank, generator=torch.Generator().manual_seed(s.SEED)),
                           batch_size=s.BATCH_SIZE, drop_last=True)
    loader = DataLoader(bank, sampler=sampler, batch_size=None, num_workers=s.NUM_WORKERS)
    model = nn.Linear(s.FEATURE_DIM, s.NUM_CLASSES)
    opt = torch.optim.SGD(model.parameters(), lr=s.LEARNING_RATE, momentum=s.MOMENTUM,
                          weight_decay=s.WEIGHT_DECAY)
    metrics = ClassificationMetrics(s.NUM_CLASSES, coarse_of, s.TOPK)
    meter = evalkit.Meter()
    ProbeTrainer(model, opt, [metrics], meter, s.EPOCHS).fit(loader)
    meter.report(extra=metrics.state_dict())


if __name__ == "__main__":
    main()
