"""Stream processing: linear-interpolation resampling and a biquad IIR filter, sample by sample."""


def resample_linear(ts_ms, values, period_ms, n_out):
    """Resample irregular (ts_ms, (x, y, z)) onto t0 + k*period_ms for k < n_out by linear interpolation."""
    out = []
    t0 = ts_ms[0]
    j, last = 0, len(ts_ms) - 1
    for k in range(n_out):
        t = t0 + k * period_ms
        while j < last - 1 and ts_ms[j + 1] <= t:
            j += 1
        ta, tb = ts_ms[j], ts_ms[j + 1]
        va, vb = values[j], values[j + 1]
        frac = (t - ta) / (tb - ta)
        out.append(tuple(a + (b - a) * frac for a, b in zip(va, vb)))
    return out


class Biquad:
    """Direct form I biquad, one state per channel, starting from rest."""

    def __init__(self, b, a, channels):
        self.b0, self.b1, self.b2 = b
        self.a1, self.a2 = a
        self.channels = channels

    def run(self, frames):
        b0, b1, b2, a1, a2 = self.b0, self.b1, self.b2, self.a1, self.a2
        out = [[] for _ in range(self.channels)]
        for c in range(self.channels):
            x1 = x2 = y1 = y2 = 0.0
            col = out[c]
            for frame in frames:
                x = frame[c]
                y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                x2, x1 = x1, x
                y2, y1 = y1, y
                col.append(y)
        return out
