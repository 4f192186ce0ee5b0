"""Agent tracks at 10 Hz (Argoverse-like): 2 s of history, 3 s to forecast, in agent-centric frames."""
import math

import numpy as np
import torch
from torch.utils.data import Dataset

AGENT_TYPES = ("vehicle", "pedestrian", "cyclist")
_SPEED = {"vehicle": (4.0, 16.0), "pedestrian": (0.6, 1.8), "cyclist": (2.5, 7.0)}


def simulate_track(rng, kind, n_steps, dt=0.1):
    lo, hi = _SPEED[kind]
    speed = rng.uniform(lo, hi)
    heading = rng.uniform(-math.pi, math.pi)
    yaw_rate = rng.normal(0.0, 0.15 if kind == "vehicle" else 0.4)
    accel = rng.normal(0.0, 0.6)
    x, y = rng.uniform(-200, 200), rng.uniform(-200, 200)
    pts = []
    for i in range(n_steps):
        if i == 20 and rng.random() < 0.3:  # a manoeuvre starts in the forecast window
            yaw_rate = rng.normal(0.0, 0.35)
            accel = rng.normal(0.0, 1.5)
        speed = max(0.0, speed + accel * dt)
        heading += yaw_rate * dt
        x += speed * math.cos(heading) * dt
        y += speed * math.sin(heading) * dt
        pts.append((x + rng.normal(0, 0.03), y + rng.normal(0, 0.03)))
    return np.array(pts)


class AgentTracks(Dataset):
    """Map-style: (history [20, 2], future [30, 2], origin [2], heading [], type) in the agent frame."""

    def __init__(self, n_tracks, hist_len, fut_len, seed):
        rng = np.random.default_rng(seed)
        hist, fut, origins, headings, types = [], [], [], [], []
        for _ in range(n_tracks):
            kind = int(rng.choice(len(AGENT_TYPES), p=[0.6, 0.25, 0.15]))
            track = simulate_track(rng, AGENT_TYPES[kind], hist_len + fut_len)
            origin = track[hist_len - 1]
            d = track[hist_len - 1] - track[hist_len - 3]
            heading = math.atan2(d[1], d[0]) if np.hypot(*d) > 1e-3 else 0.0
            c, s = math.cos(heading), math.sin(heading)
            rot = np.array([[c, s], [-s, c]])  # world -> agent frame
            local = (track - origin) @ rot.T
            hist.append(local[:hist_len])
            fut.append(local[hist_len:])
            origins.append(origin)
            headings.append(heading)
            types.append(kind)
        self.hist = torch.tensor(np.stack(hist), dtype=torch.float32)
        self.fut = torch.tensor(np.stack(fut), dtype=torch.float32)
        self.origin = torch.tensor(np.stack(origins), dtype=torch.float64)
        self.heading = torch.tensor(headings, dtype=torch.float64)
        self.types = torch.tensor(types)

    def __len__(self):
        return len(self.types)

    def __getitem__(self, i):
        return self.hist[i], self.fut[i], self.origin[i], self.heading[i], self.types[i]
