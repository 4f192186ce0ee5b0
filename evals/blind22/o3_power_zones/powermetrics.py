"""Power-meter metrics (TrainingPeaks / Coggan definitions) on 1 Hz integer-watt streams."""
import numpy as np


def rolling_average(power, window=30):
    """Trailing `window`-second average; the first value covers seconds 0..window-1."""
    out = []
    for i in range(window - 1, len(power)):
        out.append(np.mean(power[i - window + 1:i + 1]))
    return np.array(out)


def normalized_power(rolling):
    """NP: fourth root of the mean of the 4th power of the 30 s rolling average."""
    return float(np.mean(rolling ** 4) ** 0.25)


def time_in_zones(power, ftp, bounds):
    """Fraction of the seconds spent in each power zone (len(bounds) + 1 zones)."""
    counts = [0] * (len(bounds) + 1)
    for p in power:
        z = 0
        while z < len(bounds) and p >= bounds[z] * ftp:
            z += 1
        counts[z] += 1
    return [c / len(power) for c in counts]


def variability_index(np_watts, power):
    avg = float(np.mean(power))
    return np_watts / avg if avg > 0 else 0.0
