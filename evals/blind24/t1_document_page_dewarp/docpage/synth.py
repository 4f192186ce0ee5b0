"""Deterministic synthetic 'photographed' document pages.

A flat page is rendered from one of five layouts, then bent around a vertical
cylinder (the curl of an open book) and photographed with a little perspective,
uneven lighting and sensor noise. Each page keeps the curvature that the capture
app estimated, which the dewarping transform later inverts.
"""
import numpy as np

LAYOUTS = ("single_column", "two_column", "table", "figure_caption", "title_list")


def _render_flat(layout, size, rng):
    page = np.ones((size, size), dtype=np.float64)
    m = size // 8
    if layout == "single_column":
        for y in range(m, size - m, 4):
            end = size - m - int(rng.integers(0, size // 4))
            page[y:y + 2, m:end] = 0.15
    elif layout == "two_column":
        mid = size // 2
        for y in range(m, size - m, 4):
            page[y:y + 2, m:mid - 2] = 0.15
            page[y:y + 2, mid + 2:size - m - int(rng.integers(0, 6))] = 0.15
    elif layout == "table":
        for y in range(m, size - m + 1, 6):
            page[y, m:size - m] = 0.1
        for x in range(m, size - m + 1, size // 5):
            page[m:size - m, x] = 0.1
    elif layout == "figure_caption":
        top = m + int(rng.integers(0, 4))
        page[top:size // 2 + 4, m + 2:size - m - 2] = 0.45
        for y in range(size // 2 + 8, size - m, 4):
            page[y:y + 2, m + 4:size - m - 4] = 0.15
    else:  # title_list
        page[m:m + 4, m:size - m] = 0.05
        for y in range(m + 8, size - m, 5):
            page[y:y + 2, m:m + 2] = 0.1
            page[y:y + 2, m + 4:size - m - int(rng.integers(2, 12))] = 0.2
    return page


def _photograph(flat, k, persp, noise_std, rng):
    """Forward cylinder warp (bilinear, vectorised) plus lighting and noise."""
    h, w = flat.shape
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    # image x -> arc length on the page
    s = np.arcsin(np.clip((xx - cx) * k, -1.0, 1.0)) / k
    depth = (1.0 - np.cos(s * k)) / k
    src_x = cx + s
    src_y = cy + (yy - cy) / (1.0 + depth * persp)
    x0 = np.clip(np.floor(src_x).astype(int), 0, w - 2)
    y0 = np.clip(np.floor(src_y).astype(int), 0, h - 2)
    fx = np.clip(src_x - x0, 0.0, 1.0)
    fy = np.clip(src_y - y0, 0.0, 1.0)
    img = (flat[y0, x0] * (1 - fx) * (1 - fy) + flat[y0, x0 + 1] * fx * (1 - fy)
           + flat[y0 + 1, x0] * (1 - fx) * fy + flat[y0 + 1, x0 + 1] * fx * fy)
    light = 0.85 + 0.15 * np.cos((xx - cx) / w * 2.0 + rng.uniform(-0.5, 0.5))
    img = img * light + rng.normal(0.0, noise_std, size=img.shape)
    return np.clip(img, 0.0, 1.0).astype(np.float32)


def make_pages(num_pages, size, curvature_range, perspective, noise_std, seed):
    rng = np.random.default_rng(seed)
    pages = []
    for i in range(num_pages):
        label = i % len(LAYOUTS)
        flat = _render_flat(LAYOUTS[label], size, rng)
        k = float(rng.uniform(*curvature_range))
        img = _photograph(flat, k, perspective, noise_std, rng)
        pages.append({"image": img, "label": label,
                      "meta": {"curvature": k, "perspective": perspective}})
    order = rng.permutation(num_pages)
    return [pages[i] for i in order]
