"""Trace processing in the style of ObsPy: demean, biquad band-pass, classic STA/LTA, trigger onsets."""
import math


class Biquad:
    """Second-order IIR section (RBJ audio-EQ cookbook design), direct form I."""

    def __init__(self, b0, b1, b2, a1, a2):
        self.b0, self.b1, self.b2, self.a1, self.a2 = b0, b1, b2, a1, a2

    @classmethod
    def highpass(cls, freq, rate, q=1 / math.sqrt(2)):
        w0 = 2 * math.pi * freq / rate
        alpha = math.sin(w0) / (2 * q)
        cw = math.cos(w0)
        a0 = 1 + alpha
        return cls((1 + cw) / 2 / a0, -(1 + cw) / a0, (1 + cw) / 2 / a0, -2 * cw / a0, (1 - alpha) / a0)

    @classmethod
    def lowpass(cls, freq, rate, q=1 / math.sqrt(2)):
        w0 = 2 * math.pi * freq / rate
        alpha = math.sin(w0) / (2 * q)
        cw = math.cos(w0)
        a0 = 1 + alpha
        return cls((1 - cw) / 2 / a0, (1 - cw) / a0, (1 - cw) / 2 / a0, -2 * cw / a0, (1 - alpha) / a0)

    def filter(self, x):
        b0, b1, b2, a1, a2 = self.b0, self.b1, self.b2, self.a1, self.a2
        x1 = x2 = y1 = y2 = 0.0
        out = []
        for v in x:
            y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2, x1 = x1, v
            y2, y1 = y1, y
            out.append(y)
        return out


class BandPass:
    """High-pass then low-pass section, zero initial state (a causal 'bandpass', zerophase=False)."""

    def __init__(self, freqmin, freqmax, rate):
        self.sections = [Biquad.highpass(freqmin, rate), Biquad.lowpass(freqmax, rate)]

    def __call__(self, x):
        for sec in self.sections:
            x = sec.filter(x)
        return x


def demean(x):
    m = sum(x) / len(x)
    return [v - m for v in x]


def classic_sta_lta(x, nsta, nlta):
    """Ratio of short- to long-term average of the squared trace (ObsPy's classic_sta_lta, in Python).

    The first nlta - 1 samples have no full long window and get 0."""
    sq = [v * v for v in x]
    n = len(sq)
    cft = [0.0] * n
    sta = sum(sq[nlta - nsta:nlta])
    lta = sum(sq[:nlta])
    for i in range(nlta - 1, n):
        if i >= nlta:
            sta += sq[i] - sq[i - nsta]
            lta += sq[i] - sq[i - nlta]
        if lta > 0.0:
            cft[i] = (sta / nsta) / (lta / nlta)
    return cft


def trigger_onset(cft, thr_on, thr_off, max_triggers=8):
    """[(on, off), ...] sample indices where cft rises above thr_on until it falls below thr_off."""
    triggers = []
    i, n = 0, len(cft)
    while i < n and len(triggers) < max_triggers:
        if cft[i] > thr_on:
            on = i
            while i < n and cft[i] > thr_off:
                i += 1
            triggers.append((on, i - 1))
        i += 1
    return triggers
