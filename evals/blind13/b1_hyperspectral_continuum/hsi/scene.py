"""A synthetic airborne scene in the shape an AVIRIS-like reader returns it.

Radiance-corrected reflectance is stored as uint16 digital numbers (reflectance * 10000), band
interleaved by pixel (rows, cols, bands), with the band centre wavelengths in nanometres (the sensor's
spacing is not perfectly uniform). Each pixel is a linear mixture of a few endmember spectra.
"""
import numpy as np

# (name, continuum slope, [(centre nm, width nm, depth), ...]) -- rough mineral/vegetation shapes.
ENDMEMBERS = [
    ("kaolinite", 0.10, [(1400, 40, 0.18), (1415, 20, 0.10), (2165, 30, 0.22), (2205, 25, 0.30)]),
    ("alunite", 0.05, [(1430, 50, 0.20), (1760, 40, 0.12), (2170, 35, 0.25)]),
    ("calcite", 0.08, [(1870, 80, 0.10), (2340, 45, 0.35)]),
    ("vegetation", -0.02, [(480, 60, 0.25), (670, 40, 0.45), (980, 50, 0.08), (1200, 60, 0.12)]),
    ("hematite", 0.25, [(550, 120, 0.30), (870, 110, 0.28)]),
    ("water", -0.30, [(750, 200, 0.30), (1000, 150, 0.40)]),
]


def wavelengths(n_bands, lo=400.0, hi=2500.0, seed=0):
    rng = np.random.default_rng(seed + 11)
    grid = np.linspace(lo, hi, n_bands)
    return np.sort(grid + rng.normal(0.0, 1.5, n_bands))


def endmember_spectrum(entry, wl, level):
    _, slope, features = entry
    t = (wl - wl[0]) / (wl[-1] - wl[0])
    spec = level * (1.0 + slope * t) + 0.04 * np.sin(3.0 * t + level)
    for centre, width, depth in features:
        spec = spec * (1.0 - depth * np.exp(-0.5 * ((wl - centre) / width) ** 2))
    return np.clip(spec, 0.01, 0.98)


def reference_library(wl, names):
    by_name = {e[0]: e for e in ENDMEMBERS}
    return np.stack([endmember_spectrum(by_name[n], wl, 0.55) for n in names])


def _smooth_field(rng, h, w, passes=6):
    f = rng.random((h, w))
    for _ in range(passes):
        f = (f + np.roll(f, 1, 0) + np.roll(f, -1, 0) + np.roll(f, 1, 1) + np.roll(f, -1, 1)) / 5.0
    return f


def synthesize_scene(seed, height, width, n_bands):
    rng = np.random.default_rng(seed)
    wl = wavelengths(n_bands, seed=seed)
    levels = rng.uniform(0.3, 0.7, len(ENDMEMBERS))
    spectra = np.stack([endmember_spectrum(e, wl, lv) for e, lv in zip(ENDMEMBERS, levels)])
    fields = np.stack([_smooth_field(rng, height, width) ** 4 for _ in ENDMEMBERS], axis=-1)
    abundance = fields / fields.sum(-1, keepdims=True)
    refl = abundance @ spectra
    refl *= 1.0 + 0.03 * _smooth_field(rng, height, width)[..., None]  # topographic shading
    refl += rng.normal(0.0, 0.004, refl.shape)                         # sensor noise
    dn = np.clip(np.rint(refl * 10000.0), 0, 65535).astype(np.uint16)
    labels = abundance.argmax(-1).astype(np.int64)
    return {"dn": dn, "wavelengths": wl, "labels": labels,
            "class_names": [e[0] for e in ENDMEMBERS], "scale": 1e-4}
