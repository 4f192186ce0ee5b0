"""Nowcast the aviation flight category (VFR/MVFR/IFR/LIFR) from the last 24 hourly METARs."""
import argparse
import importlib.util
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from metar import N_FEATURES, parse_metar, report_features
from wxgen import CATEGORIES, make_archive


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class MetarHistory(Dataset):
    def __init__(self, archive, history, lead):
        self.archive = archive
        self.history = history
        self.stations = sorted(archive)
        self.index = []
        for s, icao in enumerate(self.stations):
            reports, cats = archive[icao]
            for end in range(history - 1, len(reports) - lead):
                self.index.append((s, end))
        self.lead = lead

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        s, end = self.index[i]
        reports, cats = self.archive[self.stations[s]]
        window = reports[end - self.history + 1:end + 1]
        obs = torch.tensor([report_features(parse_metar(r)) for r in window], dtype=torch.float32)
        return {"obs": obs, "target": cats[end + self.lead], "station": s}


class Nowcaster(nn.Module):
    def __init__(self, n_features, hidden, n_stations, n_classes):
        super().__init__()
        self.station = nn.Embedding(n_stations, 8)
        self.rnn = nn.GRU(n_features, hidden, batch_first=True)
        self.out = nn.Sequential(nn.Linear(hidden + 8, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, obs, station):
        _, h = self.rnn(obs)
        return self.out(torch.cat([h[-1], self.station(station)], dim=1))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--settings", default="settings.py")
    cfg = load_settings(parser.parse_args().settings)

    torch.set_num_threads(1)
    torch.manual_seed(cfg.SEED)

    archive = make_archive(cfg.STATIONS, cfg.HOURS, cfg.SEED)
    dataset = MetarHistory(archive, cfg.HISTORY, cfg.LEAD)
    print(f"{len(dataset)} samples from {len(cfg.STATIONS)} stations", file=sys.stderr)
    loader = DataLoader(dataset, batch_size=cfg.BATCH_SIZE, shuffle=True,
                        generator=torch.Generator().manual_seed(cfg.SEED))

    model = Nowcaster(N_FEATURES, cfg.HIDDEN, len(cfg.STATIONS), len(CATEGORIES))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.LR)
    criterion = nn.CrossEntropyLoss()

    meter = Meter()
    confusion = [[0] * len(CATEGORIES) for _ in CATEGORIES]
    step = 0
    for epoch in range(cfg.EPOCHS):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["obs"], batch["station"])
            loss = criterion(logits, batch["target"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            for t, p in zip(batch["target"].tolist(), logits.argmax(1).tolist()):
                confusion[t][p] += 1
            if step % cfg.LOG_EVERY == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break

    meter.report(extra={"steps": step, "confusion": confusion})


if __name__ == "__main__":
    main()
