"""PIL.ImageOps-style point operations on HxWxC uint8 images (no PIL dependency)."""
import numpy as np


def _split(img):
    h, w, c = img.shape
    flat = img.reshape(-1, c).tolist()
    return [[px[k] for px in flat] for k in range(c)], (h, w, c)


def _merge(channels, shape):
    return np.array(list(zip(*channels)), dtype=np.uint8).reshape(shape)


def _histogram(channel):
    hist = [0] * 256
    for p in channel:
        hist[p] += 1
    return hist


def _autocontrast_lut(hist):
    lo = 0
    while lo < 256 and not hist[lo]:
        lo += 1
    hi = 255
    while hi >= 0 and not hist[hi]:
        hi -= 1
    if hi <= lo:
        return list(range(256))
    scale = 255.0 / (hi - lo)
    offset = -lo * scale
    lut = []
    for ix in range(256):
        v = int(ix * scale + offset)
        lut.append(0 if v < 0 else 255 if v > 255 else v)
    return lut


def _equalize_lut(hist):
    histo = [x for x in hist if x]
    if len(histo) <= 1:
        return list(range(256))
    step = (sum(histo) - histo[-1]) // 255
    if not step:
        return list(range(256))
    lut = []
    n = step // 2
    for i in range(256):
        lut.append(min(n // step, 255))
        n = n + hist[i]
    return lut


def _apply_lut(img, make_lut):
    channels, shape = _split(img)
    out = []
    for ch in channels:
        lut = make_lut(_histogram(ch))
        out.append([lut[p] for p in ch])
    return _merge(out, shape)


def autocontrast(img):
    return _apply_lut(img, _autocontrast_lut)


def equalize(img):
    return _apply_lut(img, _equalize_lut)


def solarize(img, threshold):
    channels, shape = _split(img)
    return _merge([[p if p < threshold else 255 - p for p in ch] for ch in channels], shape)


def posterize(img, bits):
    mask = ~(2 ** (8 - bits) - 1) & 0xFF
    channels, shape = _split(img)
    return _merge([[p & mask for p in ch] for ch in channels], shape)
