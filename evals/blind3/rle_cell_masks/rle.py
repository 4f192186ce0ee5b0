"""COCO-style compressed RLE (the string form written by pycocotools' rleToString), in Python.

Masks are run-length encoded in column-major (Fortran) order, starting with a run of zeros.
"""


def encode_counts(mask):
    """mask: (h, w) array of 0/1 -> list of run lengths, column-major, first run is zeros."""
    flat = mask.T.reshape(-1).tolist()
    counts = []
    prev, run = 0, 0
    for v in flat:
        if v != prev:
            counts.append(run)
            run = 0
            prev = v
        run += 1
    counts.append(run)
    return counts


def counts_to_string(counts):
    out = []
    for i, x in enumerate(counts):
        if i > 2:
            x -= counts[i - 2]
        more = True
        while more:
            c = x & 0x1F
            x >>= 5
            more = (x != -1) if (c & 0x10) else (x != 0)
            if more:
                c |= 0x20
            out.append(chr(c + 48))
    return "".join(out)


def string_to_counts(s):
    counts = []
    p = 0
    while p < len(s):
        x = 0
        k = 0
        more = True
        while more:
            c = ord(s[p]) - 48
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and (c & 0x10):
                x |= -1 << (5 * k)
        if len(counts) > 2:
            x += counts[-2]
        counts.append(x)
    return counts


def decode(rle):
    """rle: {"size": [h, w], "counts": str} -> flat list of 0/1 in row-major order."""
    h, w = rle["size"]
    counts = string_to_counts(rle["counts"])
    col_major = [0] * (h * w)
    pos = 0
    val = 0
    for run in counts:
        for j in range(pos, pos + run):
            col_major[j] = val
        pos += run
        val = 1 - val
    # back to row-major
    return [col_major[x * h + y] for y in range(h) for x in range(w)]
