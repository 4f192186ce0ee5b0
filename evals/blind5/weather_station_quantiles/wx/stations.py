"""Synthetic hourly station records (temperature, dew point, pressure, wind u/v, precipitation).

Values are rounded to 0.1 like METAR/SYNOP reports; outages leave NaN gaps in every channel.
"""
import numpy as np

CHANNELS = ["temp_c", "dewpoint_c", "pressure_hpa", "wind_u", "wind_v", "precip_mm"]


def _smooth_noise(rng, n, tau, scale):
    kernel = np.exp(-np.arange(int(5 * tau)) / tau)
    kernel /= np.sqrt((kernel ** 2).sum())
    white = rng.normal(0.0, scale, n + kernel.size)
    return np.convolve(white, kernel, mode="valid")[:n]


def make_station(rng, hours):
    t = np.arange(hours, dtype=np.float64)
    lat_offset = rng.uniform(-8, 8)
    season = -np.cos(2 * np.pi * t / 8760.0)
    diurnal = -np.cos(2 * np.pi * (t % 24 - 3) / 24.0)
    synoptic = _smooth_noise(rng, hours, 60.0, 1.0)          # passing weather systems
    temp = 10 - 0.5 * lat_offset + 11 * season + 4 * diurnal + 3 * synoptic + _smooth_noise(rng, hours, 4, 0.6)
    dew = temp - np.abs(3 + 2 * diurnal - 2.5 * synoptic + _smooth_noise(rng, hours, 8, 1.0))
    pressure = 1013 + 9 * synoptic + _smooth_noise(rng, hours, 20, 2.0)
    wind_u = 2 + 4 * _smooth_noise(rng, hours, 12, 1.0) - 2 * synoptic
    wind_v = 4 * _smooth_noise(rng, hours, 12, 1.0) + synoptic
    wet = -synoptic + 0.6 * _smooth_noise(rng, hours, 3, 1.0)
    precip = np.where(wet > 1.0, (wet - 1.0) * rng.gamma(1.5, 1.2, hours), 0.0)
    data = np.stack([temp, dew, pressure, wind_u, wind_v, precip])
    data = np.round(data, 1) + 0.0  # + 0.0 turns -0.0 into 0.0
    # outages: 1-12 h gaps in all channels, single-sensor dropouts
    for _ in range(int(hours * 0.002)):
        s = int(rng.integers(0, hours - 12))
        data[:, s:s + int(rng.integers(1, 13))] = np.nan
    for _ in range(int(hours * 0.004)):
        c = int(rng.integers(0, len(CHANNELS)))
        s = int(rng.integers(0, hours - 6))
        data[c, s:s + int(rng.integers(1, 7))] = np.nan
    return data


def make_network(n_stations, days, seed):
    rng = np.random.default_rng(seed)
    return [make_station(rng, days * 24) for _ in range(n_stations)]
