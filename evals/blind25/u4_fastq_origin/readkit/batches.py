"""A hand-rolled batch iterator over FASTQ text records (no DataLoader)."""
import numpy as np
import torch

from .records import (adapter_index, decode_phred, expected_errors, kmer_profile, parse_record,
                      poly_g_index, quality_trim_index, reverse_complement)


class ReadFeaturizer:
    def __init__(self, trim_cfg, k, read_len, rng):
        self.cfg = trim_cfg
        self.k = k
        self.read_len = read_len
        self.rng = rng

    def __call__(self, record):
        _, seq, qual = parse_record(record)
        quals = decode_phred(qual)
        end = quality_trim_index(quals, self.cfg["quality_cutoff"])
        seq, quals = seq[:end], quals[:end]
        end = poly_g_index(seq, self.cfg["poly_g_min_run"])
        seq, quals = seq[:end], quals[:end]
        end = adapter_index(seq, self.cfg["adapter"], self.cfg["adapter_min_overlap"],
                            self.cfg["bases_per_mismatch"])
        seq, quals = seq[:end], quals[:end]
        if self.rng.random() < 0.5:  # strand is arbitrary
            seq, quals = reverse_complement(seq, quals)
        prof = kmer_profile(seq, self.k)
        n = len(quals)
        qsum = 0
        for q in quals:
            qsum += q
        summary = [n / self.read_len, (qsum / n) / 40.0 if n else 0.0, expected_errors(quals) / 10.0]
        return prof, summary


class ReadBatches:
    def __init__(self, records, labels, batch_size, featurizer, seed, shuffle=True, drop_last=True):
        self.records = records
        self.labels = np.asarray(labels)
        self.batch_size = batch_size
        self.featurizer = featurizer
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.order_rng = np.random.default_rng(seed)

    def __len__(self):
        n = len(self.records)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        idx = self.order_rng.permutation(len(self.records)) if self.shuffle else np.arange(len(self.records))
        for b in range(len(self)):
            chunk = idx[b * self.batch_size:(b + 1) * self.batch_size]
            profs, summaries = [], []
            for i in chunk:
                p, s = self.featurizer(self.records[i])
                profs.append(p)
                summaries.append(s)
            yield {
                "kmers": torch.tensor(profs, dtype=torch.float32),
                "summary": torch.tensor(summaries, dtype=torch.float32),
                "label": torch.from_numpy(self.labels[chunk].astype(np.int64)),
            }
