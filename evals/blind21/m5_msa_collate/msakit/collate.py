import torch

from .alphabet import AA_TO_ID, GAP, PAD_ID, UNK_ID


class MSACollator:
    """Pads a list of MSAs to (batch, depth, length).

    Returns tokens (long), gap_mask (True at '-'), pad_mask (True at padding), labels (batch, length)
    with -100 at padded columns.
    """

    def __init__(self, max_depth=None):
        self.max_depth = max_depth

    def __call__(self, samples):
        depth = max(len(s["msa"]) for s in samples)
        if self.max_depth is not None:
            depth = min(depth, self.max_depth)
        length = max(len(s["msa"][0]) for s in samples)
        batch = len(samples)
        tokens = torch.full((batch, depth, length), PAD_ID, dtype=torch.long)
        gap_mask = torch.zeros((batch, depth, length), dtype=torch.bool)
        pad_mask = torch.ones((batch, depth, length), dtype=torch.bool)
        labels = torch.full((batch, length), -100, dtype=torch.long)
        for b, sample in enumerate(samples):
            for d, seq in enumerate(sample["msa"][:depth]):
                for pos, ch in enumerate(seq):
                    tokens[b, d, pos] = AA_TO_ID.get(ch, UNK_ID)
                    gap_mask[b, d, pos] = ch == GAP
                    pad_mask[b, d, pos] = False
            for pos, flag in enumerate(sample["conserved"]):
                labels[b, pos] = flag
        return {"names": [s["name"] for s in samples], "tokens": tokens, "gap_mask": gap_mask,
                "pad_mask": pad_mask, "labels": labels}
