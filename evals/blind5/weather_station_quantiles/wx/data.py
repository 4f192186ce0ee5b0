import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from .scaling import scale_window
from .stations import make_network


class StationWindows(Dataset):
    """(station, start hour) windows: 48 h of observations -> rain in the next 6 h?"""

    def __init__(self, series, lookback, window, horizon, stride, rain_mm, noise_std, seed):
        self.series = series
        self.lookback, self.window, self.horizon = lookback, window, horizon
        self.rain_mm = rain_mm
        self.noise_std = noise_std
        self.index = [(s, t) for s, data in enumerate(series)
                      for t in range(lookback, data.shape[1] - window - horizon, stride)]
        self.calendar = self._calendar(max(d.shape[1] for d in series))
        self.gen = torch.Generator()
        self.gen.manual_seed(seed)

    def __len__(self):
        return len(self.index)

    @staticmethod
    def _calendar(n_hours):
        hours = np.arange(n_hours, dtype=np.float64)
        hod = 2 * np.pi * (hours % 24) / 24.0
        doy = 2 * np.pi * (hours % 8760) / 8760.0
        return torch.from_numpy(np.stack([np.sin(hod), np.cos(hod), np.sin(doy), np.cos(doy)]).astype(np.float32))

    def __getitem__(self, i):
        s, t = self.index[i]
        data = self.series[s]
        history = data[:, t - self.lookback:t].tolist()
        window = data[:, t:t + self.window].tolist()
        obs = torch.tensor(scale_window(window, history), dtype=torch.float32)
        obs = obs + self.noise_std * torch.randn(obs.shape, generator=self.gen)
        future = data[5, t + self.window:t + self.window + self.horizon]
        rain = float(np.nansum(future) > self.rain_mm)
        return {
            "inputs": {"obs": obs, "calendar": self.calendar[:, t:t + self.window]},
            "target": torch.tensor(rain),
            "meta": {"station": s, "hour": t},
        }


class WeatherDataModule:
    def __init__(self, cfg):
        self.cfg = cfg

    def setup(self):
        c, seed = self.cfg["data"], self.cfg.getint("experiment", "seed")
        series = make_network(c.getint("stations"), c.getint("days"), seed)
        self.train_set = StationWindows(
            series, c.getint("lookback_hours"), c.getint("window_hours"), c.getint("horizon_hours"),
            c.getint("stride_hours"), c.getfloat("rain_threshold_mm"), c.getfloat("noise_std"), seed + 1)

    def train_dataloader(self):
        g = torch.Generator()
        g.manual_seed(self.cfg.getint("experiment", "seed") + 2)
        lc = self.cfg["loader"]
        return DataLoader(self.train_set, batch_size=lc.getint("batch_size"), shuffle=True,
                          drop_last=True, num_workers=lc.getint("num_workers"), generator=g)
