import argparse
import configparser
import sqlite3

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import evalkit
from make_db import FAULTS, build


class VibrationDB(Dataset):
    """Windows addressed by (machine, widx); each access fetches its row from the SQLite export."""

    def __init__(self, db_path, keys, crop_len, seed):
        self.db_path = db_path
        self.keys = keys
        self.crop_len = crop_len
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.keys)

    def _fetch(self, machine, widx):
        con = sqlite3.connect(self.db_path)
        try:
            row = con.execute("SELECT rpm, fault, signal FROM windows WHERE machine = ? AND widx = ?",
                              (machine, widx)).fetchone()
        finally:
            con.close()
        return row

    def __getitem__(self, i):
        machine, widx = self.keys[i]
        rpm, fault, blob = self._fetch(machine, widx)
        signal = np.frombuffer(blob, dtype=np.float32)
        start = int(self.rng.integers(0, len(signal) - self.crop_len + 1))
        x = signal[start:start + self.crop_len]
        x = (x - x.mean()) / (x.std() + 1e-6)
        rpm_feat = np.float32((rpm - 1800.0) / 100.0)
        return torch.from_numpy(x.copy()).unsqueeze(0), torch.tensor(rpm_feat), FAULTS.index(fault)


class WDCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 32, 64, stride=4, padding=30), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(64, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.AdaptiveAvgPool1d(4),
        )
        self.classifier = nn.Linear(32 * 4 + 1, n_classes)

    def forward(self, x, rpm):
        h = self.features(x).flatten(1)
        return self.classifier(torch.cat([h, rpm.unsqueeze(1)], dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="bearing.ini")
    args = parser.parse_args()
    cp = configparser.ConfigParser()
    cp.read(args.config)
    seed = cp.getint("general", "seed")
    db_path = cp.get("general", "db_path")
    machines = cp.getint("data", "machines")
    per_machine = cp.getint("data", "windows_per_machine")

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    build(db_path, machines, per_machine, cp.getint("data", "window_len"), seed)

    keys = [(m, w) for m in range(machines) for w in range(per_machine)]
    train_set = VibrationDB(db_path, keys, cp.getint("data", "crop_len"), seed)
    loader = DataLoader(train_set, batch_size=cp.getint("training", "batch_size"), shuffle=True,
                        drop_last=True, generator=torch.Generator().manual_seed(seed))

    model = WDCNN(len(FAULTS))
    optimizer = torch.optim.Adam(model.parameters(), lr=cp.getfloat("training", "learning_rate"))
    criterion = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    log_every = cp.getint("training", "log_every")

    losses, accs = [], []
    step = 0
    for epoch in range(cp.getint("training", "epochs")):
        for x, rpm, y in loader:
            meter.batch({"x": x, "rpm": rpm, "y": y})
            out = model(x, rpm)
            loss = criterion(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            step += 1
            losses.append(loss.item())
            accs.append((out.argmax(1) == y).float().mean().item())
            if step % log_every == 0:
                print(f"epoch {epoch} step {step} loss {np.mean(losses[-log_every:]):.4f} "
                      f"acc {np.mean(accs[-log_every:]):.3f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"train_acc_last50": round(float(np.mean(accs[-50:])), 6), "steps": step})


if __name__ == "__main__":
    main()
