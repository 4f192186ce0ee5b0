"""Procedural underwater photographs: a clear scene seen through an absorbing, scattering water column."""
import numpy as np

CLASSES = ("open_water", "fish_school", "kelp", "reef")

# Attenuation per metre (R, G, B): red goes first under water.
_BETA = np.array([0.45, 0.12, 0.08])
_VEIL = np.array([0.05, 0.45, 0.60])


def _clear_scene(rng, label, size):
    yy, xx = np.mgrid[0:size, 0:size] / (size - 1.0)
    scene = np.empty((size, size, 3))
    scene[..., 0] = 0.55 + 0.25 * yy
    scene[..., 1] = 0.50 + 0.20 * yy
    scene[..., 2] = 0.40 + 0.10 * yy
    colour = rng.uniform(0.2, 1.0, size=3)
    if label == 1:  # a school of fish: small ellipses
        for _ in range(int(rng.integers(4, 9))):
            cy, cx = rng.uniform(0.1, 0.9, size=2)
            ry, rx = rng.uniform(0.03, 0.06), rng.uniform(0.06, 0.12)
            scene[((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0] = colour
    elif label == 2:  # kelp: wavy vertical bands
        for _ in range(int(rng.integers(2, 5))):
            cx, half_width, freq = rng.uniform(0.05, 0.95), rng.uniform(0.02, 0.05), rng.uniform(4, 12)
            band = np.abs(xx - cx - 0.05 * np.sin(yy * freq)) <= half_width
            scene[band] = colour * np.array([0.4, 1.0, 0.5])
    elif label == 3:  # reef: blobs along the bottom
        for _ in range(int(rng.integers(3, 7))):
            cy, cx, r = rng.uniform(0.6, 1.0), rng.uniform(0.0, 1.0), rng.uniform(0.08, 0.2)
            scene[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = colour
    scene = np.clip(scene + rng.normal(0.0, 0.03, size=scene.shape), 0.0, 1.0)
    return scene, yy


def render_scene(seed, index, size):
    """Return (uint8 HxWx3 photo, label) for one deterministic scene."""
    rng = np.random.default_rng([seed, index])
    label = int(rng.integers(len(CLASSES)))
    scene, yy = _clear_scene(rng, label, size)
    depth = rng.uniform(2.0, 8.0) * (1.2 - yy) + rng.normal(0.0, 0.1, size=yy.shape)
    t = np.exp(-depth[..., None] * _BETA * rng.uniform(0.7, 1.3))
    veil = np.clip(_VEIL * rng.uniform(0.8, 1.2, size=3), 0.0, 1.0)
    hazy = scene * t + veil * (1.0 - t)
    photo = np.clip(hazy + rng.normal(0.0, 0.01, size=hazy.shape), 0.0, 1.0)
    return (photo * 255.0 + 0.5).astype(np.uint8), label
