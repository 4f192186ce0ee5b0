"""Per-read FASTQ decoding and trimming (quality, poly-G, 3' adapter) and k-mer profile."""

PHRED_OFFSET = 33
ERROR_PROB = [10.0 ** (-q / 10.0) for q in range(94)]   # Phred score -> error probability
BASE_CODE = {"A": 0, "C": 1, "G": 2, "T": 3}
COMPLEMENT = {"A": "T", "C": "G", "G": "C", "T": "A", "N": "N"}


class FastqError(ValueError):
    pass


def parse_record(text):
    lines = text.rstrip("\n").split("\n")
    if len(lines) != 4 or not lines[0].startswith("@") or not lines[2].startswith("+"):
        raise FastqError(f"malformed record: {text[:40]!r}")
    seq, qual = lines[1], lines[3]
    if len(seq) != len(qual):
        raise FastqError(f"{lines[0]}: sequence and quality lengths differ")
    return lines[0][1:], seq, qual


def decode_phred(qual):
    out = []
    for ch in qual:
        q = ord(ch) - PHRED_OFFSET
        if q < 0 or q > 93:
            raise FastqError(f"quality character {ch!r} out of range")
        out.append(q)
    return out


def quality_trim_index(quals, cutoff):
    """3' quality trimming, the BWA / cutadapt algorithm: cut where the partial sum of
    (cutoff - q) from the 3' end is largest."""
    s = 0
    max_s = 0
    stop = len(quals)
    for i in range(len(quals) - 1, -1, -1):
        s += cutoff - quals[i]
        if s < 0:
            break
        if s > max_s:
            max_s = s
            stop = i
    return stop


def poly_g_index(seq, min_run):
    j = len(seq)
    while j > 0 and seq[j - 1] == "G":
        j -= 1
    return j if len(seq) - j >= min_run else len(seq)


def adapter_index(seq, adapter, min_overlap, bases_per_mismatch):
    """Leftmost start where the read matches the adapter (or its prefix, at the 3' end)
    with at most overlap // bases_per_mismatch mismatches. Returns len(seq) if none."""
    n = len(seq)
    a = len(adapter)
    for start in range(0, n - min_overlap + 1):
        overlap = a if a < n - start else n - start
        allowed = overlap // bases_per_mismatch
        mism = 0
        for k in range(overlap):
            if seq[start + k] != adapter[k]:
                mism += 1
        if mism <= allowed:
            return start
    return n


def reverse_complement(seq, quals):
    return "".join(COMPLEMENT[b] for b in reversed(seq)), quals[::-1]


def kmer_profile(seq, k):
    """Frequencies of the 4**k k-mers (windows with an N are skipped)."""
    size = 4 ** k
    mask = size - 1
    counts = [0] * size
    code = 0
    valid = 0
    for b in seq:
        c = BASE_CODE.get(b)
        if c is None:
            valid = 0
            code = 0
            continue
        code = ((code << 2) | c) & mask
        valid += 1
        if valid >= k:
            counts[code] += 1
    total = 0
    for c in counts:
        total += c
    if total == 0:
        return [0.0] * size
    return [c / total for c in counts]


def expected_errors(quals):
    ee = 0.0
    for q in quals:
        ee += ERROR_PROB[q]
    return ee
