"""Transforms over a trace sample dict, in the torchvision style (callables chained by Compose).

A sample is ``{"counts": int64 array (3, n), "label": int, ...}``: raw digitiser counts of the
Z, N, E components, as they come out of a miniSEED/SAC reader.
"""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomTimeShift:
    """Shift all components by the same random lag (zero-filled), like a picker's jitter augmentation."""

    def __init__(self, max_shift, generator):
        self.max_shift = int(max_shift)
        self.generator = generator

    def __call__(self, sample):
        lag = int(torch.randint(-self.max_shift, self.max_shift + 1, (1,), generator=self.generator))
        counts = sample["counts"]
        shifted = np.zeros_like(counts)
        if lag > 0:
            shifted[:, lag:] = counts[:, :-lag]
        elif lag < 0:
            shifted[:, :lag] = counts[:, -lag:]
        else:
            shifted[:] = counts
        sample = dict(sample, counts=shifted, lag=lag)
        return sample

    def __repr__(self):
        return f"RandomTimeShift(max_shift={self.max_shift})"


class AGC:
    """Automatic gain control: divide each sample by the RMS of a centred sliding window.

    The window is truncated at the trace ends (the RMS is taken over the samples that exist).
    The energy is summed on the integer counts, so it is exact.
    """

    def __init__(self, window):
        if window % 2 == 0:
            raise ValueError("AGC window must be odd")
        self.window = int(window)

    def _channel(self, trace):
        half = self.window // 2
        sq = [v * v for v in trace]
        n = len(trace)
        out = []
        for i, v in enumerate(trace):
            lo = i - half if i > half else 0
            hi = min(n, i + half + 1)
            energy = sum(sq[lo:hi])
            if energy == 0:
                out.append(0.0)
                continue
            rms = math.sqrt(energy / (hi - lo))
            out.append(v / rms)
        return out

    def __call__(self, sample):
        channels = [self._channel(ch) for ch in sample["counts"].tolist()]
        return dict(sample, agc=channels)

    def __repr__(self):
        return f"AGC(window={self.window})"


class STALTA:
    """Classic STA/LTA characteristic function on one component (trailing windows, as obspy's
    classic_sta_lta): zero until the first full long window."""

    def __init__(self, nsta, nlta, component=0):
        if nsta >= nlta:
            raise ValueError("nsta must be shorter than nlta")
        self.nsta, self.nlta, self.component = int(nsta), int(nlta), int(component)

    def __call__(self, sample):
        trace = sample["counts"][self.component].tolist()
        sq = [v * v for v in trace]
        cf = [0.0] * len(sq)
        i = self.nlta - 1
        while i < len(sq):
            lta = sum(sq[i - self.nlta + 1:i + 1]) / self.nlta
            if lta > 0:
                sta = sum(sq[i - self.nsta + 1:i + 1]) / self.nsta
                cf[i] = sta / lta
            i += 1
        return dict(sample, cf=cf)

    def __repr__(self):
        return f"STALTA(nsta={self.nsta}, nlta={self.nlta}, component={self.component})"


class RandomPolarityFlip:
    """Flip the sign of the gained components with probability p (the CF is sign-blind)."""

    def __init__(self, p, generator):
        self.p = float(p)
        self.generator = generator

    def __call__(self, sample):
        if float(torch.rand(1, generator=self.generator)) < self.p:
            sample = dict(sample, agc=[[-v for v in ch] for ch in sample["agc"]], flipped=True)
        else:
            sample = dict(sample, flipped=False)
        return sample

    def __repr__(self):
        return f"RandomPolarityFlip(p={self.p})"


class ToTensor:
    """Stack the gained Z/N/E components and the CF into a (4, n) float32 tensor."""

    def __call__(self, sample):
        x = torch.tensor(sample["agc"] + [sample["cf"]], dtype=torch.float32)
        return x, sample["label"]

    def __repr__(self):
        return "ToTensor()"
