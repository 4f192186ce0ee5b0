"""Synthetic electroluminescence (EL) panel images: a rows x cols grid of cells separated by dark gaps."""
import numpy as np

DEFECTS = ("ok", "crack", "finger", "dead")


def render_panel(rng, rows, cols, cell_px, gap_px):
    """Return (uint8 image, defect label) for one panel."""
    h = rows * cell_px + (rows + 1) * gap_px
    w = cols * cell_px + (cols + 1) * gap_px
    img = np.full((h, w), 18.0)
    label = int(rng.choice(4, p=[0.4, 0.3, 0.15, 0.15]))
    for r in range(rows):
        for c in range(cols):
            y0 = gap_px + r * (cell_px + gap_px)
            x0 = gap_px + c * (cell_px + gap_px)
            base = rng.normal(165.0, 14.0)
            cell = np.full((cell_px, cell_px), base)
            # busbars: two faint horizontal lines
            cell[cell_px // 3, :] -= 25.0
            cell[2 * cell_px // 3, :] -= 25.0
            # edge darkening
            yy, xx = np.mgrid[0:cell_px, 0:cell_px]
            d = np.minimum(np.minimum(yy, cell_px - 1 - yy), np.minimum(xx, cell_px - 1 - xx))
            cell -= 12.0 * np.exp(-d / 2.0)
            img[y0:y0 + cell_px, x0:x0 + cell_px] = cell
    n_bad = int(rng.integers(1, 4)) if label else 0
    for _ in range(n_bad):
        r, c = int(rng.integers(rows)), int(rng.integers(cols))
        y0 = gap_px + r * (cell_px + gap_px)
        x0 = gap_px + c * (cell_px + gap_px)
        if label == 1:  # crack: a dark random line across the cell
            t = np.linspace(0.0, 1.0, 3 * cell_px)
            ya, yb = rng.uniform(0, cell_px - 1, 2)
            xs = np.clip(np.round(t * (cell_px - 1)), 0, cell_px - 1).astype(int)
            ys = np.clip(np.round(ya + t * (yb - ya)), 0, cell_px - 1).astype(int)
            img[y0 + ys, x0 + xs] -= rng.uniform(60, 110)
        elif label == 2:  # finger interruption: dark rectangle at a cell edge
            fw = int(rng.integers(2, 5))
            img[y0:y0 + cell_px, x0:x0 + fw] -= 70.0
        else:  # dead cell
            img[y0:y0 + cell_px, x0:x0 + cell_px] *= 0.35
    return np.clip(img, 0, 255).astype(np.uint8), label


def augment(rng, img, max_shift):
    """Per-draw camera variation: gain, offset, sensor noise and a small translation."""
    gain = rng.uniform(0.85, 1.15)
    offset = rng.normal(0.0, 6.0)
    noise = rng.normal(0.0, 4.0, img.shape)
    out = np.clip(np.rint(img * gain + offset + noise), 0, 255).astype(np.uint8)
    dy, dx = rng.integers(-max_shift, max_shift + 1, 2)
    out = np.roll(out, (int(dy), int(dx)), axis=(0, 1))
    return out
