"""Time-series augmentations after Um et al. (2017), on channel-major nested lists."""


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x, rng):
        for t in self.transforms:
            x = t(x, rng)
        return x


class Standardize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, x, rng):
        return [[(v - m) / s for v in ch] for ch, m, s in zip(x, self.mean, self.std)]


class Jitter:
    """Additive Gaussian sensor noise, one draw per reading."""

    def __init__(self, sigma):
        self.sigma = sigma

    def __call__(self, x, rng):
        out = []
        for ch in x:
            noisy = []
            for v in ch:
                noisy.append(v + self.sigma * rng.standard_normal())
            out.append(noisy)
        return out


class Scaling:
    """One random gain per channel (sensor calibration drift)."""

    def __init__(self, sigma):
        self.sigma = sigma

    def __call__(self, x, rng):
        out = []
        for ch in x:
            gain = 1.0 + self.sigma * rng.standard_normal()
            out.append([v * gain for v in ch])
        return out


class TimeMask:
    """Drop individual time steps (packet loss on the BLE link): all channels read 0."""

    def __init__(self, p):
        self.p = p

    def __call__(self, x, rng):
        length = len(x[0])
        t = 0
        while t < length:
            if rng.random() < self.p:
                for ch in x:
                    ch[t] = 0.0
            t += 1
        return x
