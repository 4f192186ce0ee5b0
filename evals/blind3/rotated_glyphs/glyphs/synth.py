"""Synthetic glyph images: each class is a fixed set of strokes, each sample a jittered copy."""
import numpy as np


def _draw_line(img, x0, y0, x1, y1, value):
    n = int(max(abs(x1 - x0), abs(y1 - y0))) * 2 + 1
    xs = np.linspace(x0, x1, n).round().astype(int)
    ys = np.linspace(y0, y1, n).round().astype(int)
    img[ys.clip(0, img.shape[0] - 1), xs.clip(0, img.shape[1] - 1)] = value


def make_templates(num_classes, size, rng):
    templates = []
    for _ in range(num_classes):
        img = np.zeros((size, size), np.float32)
        for _ in range(rng.integers(2, 5)):
            x0, y0, x1, y1 = rng.uniform(5, size - 6, 4)
            _draw_line(img, x0, y0, x1, y1, 1.0)
        templates.append(img)
    return templates


def make_split(n, templates, rng):
    size = templates[0].shape[0]
    labels = rng.integers(0, len(templates), n)
    images = np.empty((n, size, size), np.uint8)
    for i, y in enumerate(labels):
        img = np.roll(templates[y], tuple(rng.integers(-2, 3, 2)), axis=(0, 1))
        img = img * rng.uniform(0.6, 1.0) + rng.uniform(0, 0.25, img.shape)
        images[i] = (img.clip(0, 1) * 255).astype(np.uint8)
    return images, labels
