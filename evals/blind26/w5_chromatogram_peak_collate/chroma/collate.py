"""Batching for runs with a full trace and a variable-length peak table."""
import torch


def collate_runs(samples):
    traces, peak_rows, mask_rows, labels = [], [], [], []
    max_n = max(len(s["peaks"]) for s in samples)
    for s in samples:
        # per-run min/max baseline normalisation of the detector trace
        values = s["trace"].tolist()
        base = min(values)
        scale = max(values) - base
        norm = [(v - base) / scale for v in values]
        # central-difference slope channel (edges: one-sided), used to sharpen peak onsets
        slope = [norm[1] - norm[0]] + [(norm[n + 1] - norm[n - 1]) * 0.5 for n in range(1, len(norm) - 1)] \
            + [norm[-1] - norm[-2]]
        traces.append([norm, slope])
        rows = [[float(x) for x in row] for row in s["peaks"]]
        mask_rows.append([1.0] * len(rows) + [0.0] * (max_n - len(rows)))
        rows += [[0.0, 0.0, 0.0, 0.0]] * (max_n - len(rows))
        peak_rows.append(rows)
        labels.append(s["label"])
    return {
        "trace": torch.tensor(traces, dtype=torch.float32),
        "peaks": torch.tensor(peak_rows, dtype=torch.float32),
        "peak_mask": torch.tensor(mask_rows, dtype=torch.float32),
        "label": torch.tensor(labels, dtype=torch.long),
    }
