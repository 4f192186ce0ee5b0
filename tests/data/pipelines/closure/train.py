"""Training loops whose forward and backward run inside the optimizer's step, or behind a wrapper optimizer.

--variant picks the loop: ``sgd`` (SGD with a closure), ``lbfgs`` (LBFGS, which calls the
closure several times a step), ``wrapped`` (an accelerate-style wrapper optimizer handed a
closure) or ``scaler`` (torch.amp.GradScaler.step without a closure).
"""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


class WrappedOptimizer(torch.optim.Optimizer):
    """Wrap an optimizer the way accelerate's AcceleratedOptimizer does: no Optimizer.__init__ of its own."""

    def __init__(self, optimizer):
        self.optimizer = optimizer

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def step(self, closure=None):
        return self.optimizer.step(closure)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", choices=["sgd", "lbfgs", "wrapped", "scaler"], required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(512, 64), torch.randn(512, 1))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 1))
    if args.variant == "lbfgs":
        optimizer = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=3)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    if args.variant == "wrapped":
        optimizer = WrappedOptimizer(optimizer)
    scaler = torch.amp.GradScaler("cpu", enabled=True) if args.variant == "scaler" else None
    for epoch in range(1000):
        for features, targets in loader:
            def closure():
                optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(model(features), targets)
                loss.backward()
                return loss

            if scaler is None:
                optimizer.step(closure)
                continue
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(features), targets)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()


if __name__ == "__main__":
    main()
