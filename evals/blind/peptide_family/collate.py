import torch

PAD_ID = 0


def pad_collate(samples):
    """Pad to the longest sequence in the batch; also build mask and position ids."""
    longest = max(len(s["tokens"]) for s in samples)
    tokens, mask, positions, lengths = [], [], [], []
    for s in samples:
        row = list(s["tokens"])
        n = len(row)
        while len(row) < longest:
            row.append(PAD_ID)
        tokens.append(row)
        mask.append([1.0 if j < n else 0.0 for j in range(longest)])
        positions.append([j if j < n else 0 for j in range(longest)])
        lengths.append(n)
    return {
        "tokens": torch.tensor(tokens, dtype=torch.long),
        "mask": torch.tensor(mask, dtype=torch.float32),
        "positions": torch.tensor(positions, dtype=torch.long),
        "lengths": torch.tensor(lengths, dtype=torch.long),
        "family": torch.tensor([s["family"] for s in samples], dtype=torch.long),
    }
