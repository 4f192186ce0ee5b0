"""Tiny binary morphology on nested lists (no scipy dependency)."""


def erode(mask):
    h, w = len(mask), len(mask[0])
    out = [[0] * w for _ in range(h)]
    for y in range(h):
        for x in range(w):
            keep = 1
            for dy in (-1, 0, 1):
                yy = y + dy
                for dx in (-1, 0, 1):
                    xx = x + dx
                    if yy < 0 or yy >= h or xx < 0 or xx >= w or not mask[yy][xx]:
                        keep = 0
                        break
                if not keep:
                    break
            out[y][x] = keep
    return out


def dilate(mask):
    h, w = len(mask), len(mask[0])
    out = [[0] * w for _ in range(h)]
    for y in range(h):
        for x in range(w):
            hit = 0
            for dy in (-1, 0, 1):
                yy = y + dy
                if yy < 0 or yy >= h:
                    continue
                for dx in (-1, 0, 1):
                    xx = x + dx
                    if 0 <= xx < w and mask[yy][xx]:
                        hit = 1
                        break
                if hit:
                    break
            out[y][x] = hit
    return out


def binary_open(mask, iterations=1):
    """Erosion followed by dilation with a 3x3 square; removes speckle smaller than the element."""
    for _ in range(iterations):
        mask = erode(mask)
    for _ in range(iterations):
        mask = dilate(mask)
    return mask
