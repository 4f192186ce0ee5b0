"""A PyTorch Lightning pipeline: LightningModule + LightningDataModule, closure-style optimizer step.

--precision is passed to the Trainer: "32-true" (the default) or a mixed-precision plugin such as
"bf16-mixed" or "16-mixed" (autocast around training_step; 16-mixed also a GradScaler, which runs
the closure before its scaler.step). The model pauses 5 ms in its forward, so a forward booked as
optimizer would show.
"""
import argparse
import time

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Pause(torch.nn.Module):
    def forward(self, x):
        time.sleep(0.005)
        return x


class Regression(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(Pause(), torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 1))

    def training_step(self, batch, batch_index):
        features, targets = batch
        return torch.nn.functional.mse_loss(self.net(features), targets)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


class Data(L.LightningDataModule):
    def setup(self, stage=None):
        generator = torch.Generator().manual_seed(0)
        self.train = TensorDataset(torch.randn(512, 64, generator=generator), torch.randn(512, 1, generator=generator))

    def train_dataloader(self):
        return DataLoader(self.train, batch_size=64, shuffle=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--precision", default="32-true")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    trainer = L.Trainer(max_epochs=1000, accelerator="cpu", devices=1, precision=args.precision, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Regression(), datamodule=Data())


if __name__ == "__main__":
    main()
