"""A Hugging Face accelerate pipeline on CPU: Accelerator.prepare, accelerator.backward, AcceleratedOptimizer.step.

--variant picks the loop: ``plain`` (forward, ``accelerator.backward(loss)``, ``optimizer.step()``),
``closure`` (``optimizer.step(closure)``, the closure running forward and ``accelerator.backward``)
or ``bf16`` (the plain loop under ``mixed_precision="bf16"``: autocast around the model's forward).
The model pauses 5 ms in its forward, so a forward booked as optimizer would show.
"""
import argparse
import time

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


class Pause(torch.nn.Module):
    def forward(self, x):
        time.sleep(0.005)
        return x


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", choices=["plain", "closure", "bf16"], required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    accelerator = Accelerator(cpu=True, mixed_precision="bf16" if args.variant == "bf16" else "no")
    data = TensorDataset(torch.randn(512, 64), torch.randn(512, 1))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    model = torch.nn.Sequential(Pause(), torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(1000):
        for features, targets in loader:
            if args.variant == "closure":
                def closure():
                    optimizer.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(features), targets)
                    accelerator.backward(loss)
                    return loss

                optimizer.step(closure)
                continue
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(features), targets)
            accelerator.backward(loss)
            optimizer.step()


if __name__ == "__main__":
    main()
