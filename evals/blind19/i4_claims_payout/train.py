"""Claim-outcome model: adjudicate each claim against its policy document, then fit an MLP."""
import argparse
import importlib.util
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from claims import ClaimsDataset, build_policy_store, generate_claims


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class OutcomeModel(nn.Module):
    def __init__(self, in_features, hidden, num_classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.cls = nn.Linear(hidden, num_classes)
        self.reg = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.cls(h), self.reg(h).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings", default="settings.py")
    args = parser.parse_args()
    s = load_settings(args.settings)

    torch.set_num_threads(1)
    torch.manual_seed(s.SEED)

    store = build_policy_store(s)
    claims = generate_claims(s, store)
    dataset = ClaimsDataset(claims, store)
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(s.SEED))
    loader = DataLoader(dataset, batch_size=s.BATCH_SIZE, sampler=sampler, num_workers=s.NUM_WORKERS)

    model = OutcomeModel(dataset.num_features, s.HIDDEN)
    opt = torch.optim.Adam(model.parameters(), lr=s.LR, weight_decay=s.WEIGHT_DECAY)
    meter = evalkit.Meter()
    paid_share = []
    t0 = time.time()
    step = 0
    for epoch in range(s.EPOCHS):
        for batch in loader:
            meter.batch(batch)
            logits, reg = model(batch["features"])
            target = batch["log_payout"].float()
            loss = F.cross_entropy(logits, batch["label"]) + 0.1 * F.mse_loss(reg, target / 10.0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            paid_share.append(int((batch["label"] > 0).sum()) / len(batch["label"]))
            if step % s.LOG_EVERY == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                      f"paid {sum(paid_share[-s.LOG_EVERY:]) / s.LOG_EVERY:.3f} ({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"paid_share": paid_share})


if __name__ == "__main__":
    main()
