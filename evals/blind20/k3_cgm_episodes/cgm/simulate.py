"""Simulated CGM patients: circadian baseline, meal excursions, sensor noise and signal-loss gaps."""
import numpy as np


def patient_profile(seed, patient_id):
    rng = np.random.default_rng([seed, 10_000 + patient_id])
    return {
        "baseline": rng.uniform(95.0, 160.0),
        "meal_gain": rng.uniform(30.0, 110.0),
        "drift": rng.uniform(1.5, 4.5),
        "hypo_prone": rng.uniform(0.0, 1.0),
    }


def gaussian_events(t0_h, step_h, n, centres_h, heights, width_h):
    """Sum of Gaussian bumps (peak = height) at the given times, sampled every step_h hours."""
    impulses = np.zeros(n)
    idx = np.round((centres_h - t0_h) / step_h).astype(np.int64)
    inside = (idx >= 0) & (idx < n)
    np.add.at(impulses, idx[inside], heights[inside])
    half = int(4 * width_h / step_h)
    kernel = np.exp(-0.5 * ((np.arange(-half, half + 1) * step_h) / width_h) ** 2)
    return np.convolve(impulses, kernel, mode="same")


def simulate_trace(rng, profile, n, interval_min, dropout_rate):
    """n readings (mg/dL, integer-valued like a real sensor) with NaN where the signal was lost."""
    step_h = interval_min / 60.0
    t0 = rng.uniform(0.0, 24.0)
    t_hours = t0 + np.arange(n) * step_h
    g = profile["baseline"] + 18.0 * np.sin(2 * np.pi * (t_hours - 4.0) / 24.0)

    days = np.arange(int(t_hours[-1] // 24) + 2)
    meals = (days[:, None] * 24.0 + np.array([7.5, 12.5, 19.0]) + rng.normal(0, 0.7, (days.size, 3))).ravel()
    g = g + gaussian_events(t0, step_h, n, meals, profile["meal_gain"] * rng.uniform(0.5, 1.3, meals.size), 0.9)
    dip_days = days[rng.uniform(size=days.size) < profile["hypo_prone"] * 0.6]
    dips = dip_days * 24.0 + rng.uniform(0, 24, dip_days.size)
    g = g - gaussian_events(t0, step_h, n, dips, rng.uniform(50, 110, dips.size), 0.6)

    slow = np.convolve(rng.normal(0.0, profile["drift"], n), np.ones(180) / np.sqrt(180.0), mode="same")
    g = g + 2.0 * slow + rng.normal(0.0, 3.0, n)
    g = np.clip(np.round(g), 40.0, 400.0)

    starts = np.flatnonzero(rng.uniform(size=n) < dropout_rate)
    lengths = rng.integers(1, int(90 / interval_min), size=starts.size)
    for s, length in zip(starts, lengths):
        g[s:s + length] = np.nan
    return g
