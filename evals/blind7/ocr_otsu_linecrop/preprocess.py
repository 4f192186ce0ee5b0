"""Line-crop preprocessing for plate/serial OCR: contrast jitter, Otsu binarisation, ink crop."""
import torch


def adjust_contrast(rows, gain, bias):
    """Linear gray-level jitter, clamped to 0..255 (rows: list of lists of ints)."""
    return [[min(255, max(0, int(v * gain + bias))) for v in row] for row in rows]


def histogram(rows):
    hist = [0] * 256
    for row in rows:
        for v in row:
            hist[v] += 1
    return hist


def threshold_from_histogram(hist):
    """Otsu: the gray level that maximises the between-class variance."""
    total = sum(hist)
    sum_all = sum(i * h for i, h in enumerate(hist))
    w0 = 0
    sum0 = 0
    best_t = 0
    best_var = -1.0
    for t in range(256):
        w0 += hist[t]
        if w0 == 0:
            continue
        w1 = total - w0
        if w1 == 0:
            break
        sum0 += t * hist[t]
        m0 = sum0 / w0
        m1 = (sum_all - sum0) / w1
        var = w0 * w1 * (m0 - m1) ** 2
        if var > best_var:
            best_var = var
            best_t = t
    return best_t


def otsu_threshold(rows):
    return threshold_from_histogram(histogram(rows))


def ink_span(mask, margin):
    """First and last column that hold ink, widened by a margin."""
    width = len(mask[0])
    has_ink = [False] * width
    for row in mask:
        for c, v in enumerate(row):
            if v:
                has_ink[c] = True
    cols = [c for c in range(width) if has_ink[c]]
    if not cols:
        return 0, width - 1
    return max(0, cols[0] - margin), min(width - 1, cols[-1] + margin)


def crop_pad(mask, left, right, width):
    out = []
    for row in mask:
        seg = row[left:right + 1][:width]
        out.append(seg + [0.0] * (width - len(seg)))
    return out


class LineCrop:
    """Random contrast jitter, then binarise (ink = 1.0) and left-align the ink in a fixed width."""

    def __init__(self, crop_width, gain_range, bias_range, rng, margin=2):
        self.crop_width = crop_width
        self.gain_range = gain_range
        self.bias_range = bias_range
        self.rng = rng
        self.margin = margin

    def __call__(self, img):
        gain = self.rng.uniform(*self.gain_range)
        bias = self.rng.uniform(*self.bias_range)
        rows = adjust_contrast(img.tolist(), gain, bias)
        t = otsu_threshold(rows)
        mask = [[1.0 if v <= t else 0.0 for v in row] for row in rows]
        left, right = ink_span(mask, self.margin)
        out = crop_pad(mask, left, right, self.crop_width)
        return torch.tensor(out, dtype=torch.float32).unsqueeze(0)
