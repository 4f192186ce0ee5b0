"""Multi-modal trajectory forecaster (K modes, winner-takes-all) with Argoverse-style metrics logged every step."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from metrics import forecasting_metrics
from scenes import AgentTracks


class MultiModalMLP(nn.Module):
    def __init__(self, hist_len, fut_len, modes, hidden):
        super().__init__()
        self.modes, self.fut_len = modes, fut_len
        self.encoder = nn.Sequential(nn.Linear(hist_len * 2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.traj = nn.Linear(hidden, modes * fut_len * 2)
        self.score = nn.Linear(hidden, modes)

    def forward(self, hist):
        h = self.encoder(hist.flatten(1))
        traj = self.traj(h).view(-1, self.modes, self.fut_len, 2)
        return traj, self.score(h)


class ForecastModule:
    """Lightning-like: owns the model, the optimiser, the step and what gets logged."""

    def __init__(self, args):
        self.args = args
        self.model = MultiModalMLP(args.hist_len, args.fut_len, args.modes, args.hidden)
        self.optim = torch.optim.AdamW(self.model.parameters(), lr=args.lr, weight_decay=1e-4)
        self.logged = []

    def training_step(self, batch):
        hist, fut, origin, heading, types = batch
        traj, logits = self.model(hist)
        ade = (traj - fut.unsqueeze(1)).norm(dim=-1).mean(-1)  # [B, K]
        best = ade.argmin(1)
        chosen = traj[torch.arange(len(best)), best]
        loss = nn.functional.smooth_l1_loss(chosen, fut) + self.args.cls_weight * nn.functional.cross_entropy(logits, best)
        return loss, traj.detach(), logits.detach().softmax(-1)

    def on_train_batch_end(self, batch, traj, probs, step):
        _, fut, origin, heading, types = batch
        m = forecasting_metrics(traj, probs, fut, origin, heading, types, self.args.miss_threshold)
        self.logged.append(m)
        if step % self.args.log_every == 0:
            print(f"step {step} minADE {m['minADE']:.3f} minFDE {m['minFDE']:.3f} MR {m['miss']:.3f}")

    def summary(self):
        keys = ("minADE", "minFDE", "miss", "brier_minFDE")
        last = self.logged[-1]
        out = {f"last/{k}": last[k] for k in keys}
        for k in keys:
            total = 0.0
            for m in self.logged:
                total += m[k]
            out[f"mean/{k}"] = total / len(self.logged)
        out["mode_usage"] = [sum(m["mode_usage"][k] for m in self.logged) for k in range(self.args.modes)]
        return out


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tracks", type=int, default=2000)
    ap.add_argument("--hist-len", type=int, default=20)
    ap.add_argument("--fut-len", type=int, default=30)
    ap.add_argument("--modes", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--cls-weight", type=float, default=0.1)
    ap.add_argument("--miss-threshold", type=float, default=2.0)
    ap.add_argument("--max-steps", type=int, default=100)
    ap.add_argument("--log-every", type=int, default=25)
    return ap.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    dataset = AgentTracks(args.tracks, args.hist_len, args.fut_len, args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.num_workers, generator=torch.Generator().manual_seed(args.seed))
    module = ForecastModule(args)
    meter = evalkit.Meter()
    step = 0
    while step < args.max_steps and not meter.done():
        for batch in loader:
            meter.batch(batch)
            loss, traj, probs = module.training_step(batch)
            module.optim.zero_grad()
            loss.backward()
            module.optim.step()
            step += 1
            module.on_train_batch_end(batch, traj, probs, step)
            meter.step(loss)
            if step >= args.max_steps or meter.done():
                break
    meter.report(module.summary())


if __name__ == "__main__":
    main()
