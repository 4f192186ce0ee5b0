import copy
import json
import math
import os
import random

import torch
from torch.utils.data import Dataset

CHANNELS = ["body_acc_x", "body_acc_y", "body_acc_z", "gyro_x", "gyro_y", "gyro_z",
            "total_acc_x", "total_acc_y", "total_acc_z"]


def write_dataset(path, num_windows, window_len, activities, seed):
    """One-off export: a JSON list of {"subject", "activity", "signals": [[9 floats] * window_len]}."""
    rng = random.Random(seed)
    records = []
    for i in range(num_windows):
        act = rng.randrange(len(activities))
        freq = [1.8, 2.1, 1.6, 0.0, 0.0, 0.0][act % 6] * rng.uniform(0.85, 1.15)
        amp = [1.0, 1.3, 1.4, 0.05, 0.03, 0.02][act % 6]
        grav = [(0, 0, 1), (0, 0.2, 0.98), (0, -0.2, 0.98), (0.3, 0, 0.95), (0, 0, 1), (1, 0, 0)][act % 6]
        phase = rng.uniform(0, 2 * math.pi)
        rows = []
        for t in range(window_len):
            s = math.sin(2 * math.pi * freq * t / 50.0 + phase)
            body = [amp * s * k + rng.gauss(0, 0.05) for k in (0.6, 1.0, 0.4)]
            gyro = [amp * math.cos(2 * math.pi * freq * t / 50.0 + phase) * k + rng.gauss(0, 0.03)
                    for k in (0.5, 0.2, 0.8)]
            total = [b + g for b, g in zip(body, grav)]
            rows.append([round(v, 6) for v in body + gyro + total])
        records.append({"subject": i % 30 + 1, "activity": activities[act], "signals": rows})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(records, fh)


class HARWindows(Dataset):
    def __init__(self, path, activities):
        with open(path) as fh:
            self.records = json.load(fh)
        self.label_of = {a: i for i, a in enumerate(activities)}
        all_signals = torch.tensor([r["signals"] for r in self.records], dtype=torch.float32)
        self.mean = all_signals.mean(dim=(0, 1))
        self.std = all_signals.std(dim=(0, 1))

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        sample = copy.deepcopy(self.records[idx])  # keep the cached record untouched
        x = torch.tensor(sample["signals"], dtype=torch.float32)
        x = (x - self.mean) / self.std
        y = self.label_of[sample["activity"]]
        return {"signals": x.transpose(0, 1).contiguous(), "label": y, "subject": sample["subject"]}
