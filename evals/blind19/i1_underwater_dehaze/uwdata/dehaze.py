"""Single-image dehazing with the dark channel prior (He, Sun & Tang, CVPR 2009).

All functions take float images in [0, 1], shaped (H, W, 3).
"""
import numpy as np


def dark_channel(img, patch_size=15):
    """Minimum over the colour channels and a square patch centred on each pixel."""
    h, w = img.shape[:2]
    pad = patch_size // 2
    padded = np.pad(img, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    dark = np.empty((h, w), dtype=img.dtype)
    for y in range(h):
        for x in range(w):
            patch = padded[y:y + patch_size, x:x + patch_size, :]
            dark[y, x] = np.min(patch)
    return dark


def estimate_atmospheric_light(img, dark, top_percent=0.001):
    """Among the brightest `top_percent` pixels of the dark channel, take the most intense one."""
    h, w = dark.shape
    num = max(int(h * w * top_percent), 1)
    flat_img = img.reshape(h * w, 3)
    flat_dark = dark.reshape(h * w)
    indices = np.argsort(flat_dark, kind="stable")[-num:]
    candidates = flat_img[indices]
    return candidates[np.argmax(candidates.sum(axis=1))]


def estimate_transmission(img, airlight, omega=0.95, patch_size=15):
    normalised = img / np.maximum(airlight, 1e-6)
    return 1.0 - omega * dark_channel(normalised, patch_size)


def recover_radiance(img, airlight, transmission, t0=0.1):
    t = np.maximum(transmission, t0)[..., None]
    return np.clip((img - airlight) / t + airlight, 0.0, 1.0)


def dehaze(img, patch_size=15, omega=0.95, t0=0.1, top_percent=0.001):
    dark = dark_channel(img, patch_size)
    airlight = estimate_atmospheric_light(img, dark, top_percent)
    transmission = estimate_transmission(img, airlight, omega, patch_size)
    return recover_radiance(img, airlight, transmission, t0)


def grey_world(img, eps=1e-6):
    """Grey-world white balance: scale each channel so that its mean matches the mean grey."""
    means = img.reshape(-1, 3).mean(axis=0)
    gain = means.mean() / np.maximum(means, eps)
    return np.clip(img * gain, 0.0, 1.0)
