"""Simulate a mixed-origin Illumina run and write it as FASTQ text records.

Origins differ in base composition (first-order Markov chains). Short inserts read through
into the TruSeq adapter; some reads end in a poly-G tail (two-colour chemistry, no signal);
qualities decay along the read.
"""
import numpy as np

ORIGINS = ("host", "bacterial", "viral", "phix_spike")
ADAPTER = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC"
BASES = np.array(list("ACGT"))


def _transitions(rng, gc):
    t = np.empty((4, 4))
    for i in range(4):
        p = np.array([(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]) * rng.uniform(0.6, 1.4, 4)
        t[i] = p / p.sum()
    return t


def simulate_run(n_reads, read_len, seed):
    rng = np.random.default_rng(seed)
    chains = [_transitions(rng, gc) for gc in (0.41, 0.66, 0.36, 0.45)]
    labels = rng.integers(0, len(ORIGINS), n_reads)
    # insert sequences, vectorised over reads, one position at a time
    seq = np.empty((n_reads, read_len), np.int64)
    seq[:, 0] = rng.integers(0, 4, n_reads)
    cum = np.stack([np.cumsum(c, axis=1) for c in chains])       # (origin, from, to)
    for j in range(1, read_len):
        u = rng.random(n_reads)
        rows = cum[labels, seq[:, j - 1]]                          # (n, 4)
        seq[:, j] = np.minimum((u[:, None] > rows).sum(1), 3)
    insert = rng.normal(230, 70, n_reads).astype(int).clip(40, 10 * read_len)
    pos = np.arange(read_len)
    qmean = 37 - 10 * (pos / read_len) ** 2
    records = []
    adapter_tail = ADAPTER + "A" * read_len
    for r in range(n_reads):
        s = "".join(BASES[seq[r]])
        if insert[r] < read_len:
            s = s[:insert[r]] + adapter_tail[:read_len - insert[r]]
        q = np.clip(np.round(qmean + rng.normal(0, 3, read_len)), 2, 41).astype(int)
        if rng.random() < 0.15:  # quality crash at the end
            cut = rng.integers(read_len // 2, read_len)
            q[cut:] = rng.integers(2, 12, read_len - cut)
        if rng.random() < 0.1:   # poly-G: no signal in the last cycles
            g = rng.integers(10, 60)
            s = s[:read_len - g] + "G" * g
            q[read_len - g:] = rng.integers(2, 20, g)
        s = list(s)
        for k in np.nonzero(rng.random(read_len) < 0.003)[0]:
            s[k] = "N"
            q[k] = 2
        s = "".join(s)
        qual = "".join(chr(33 + int(v)) for v in q)
        records.append(f"@SIM:{seed}:{r}:{ORIGINS[labels[r]]} 1:N:0:1\n{s}\n+\n{qual}\n")
    return records, labels
