import torch

from .vocab import BAR, PAD, POS0, is_position


class RemiBarCollator:
    """Pads a batch of REMI streams for next-token training and adds the structure the model uses:
    bar index and in-bar position of every token, and a causal attention mask that only lets a
    token see the tokens of its own bar and the `bar_window` bars before it."""

    def __init__(self, bar_window=4, max_bars=32, label_pad=-100):
        self.bar_window = bar_window
        self.max_bars = max_bars
        self.label_pad = label_pad

    def __call__(self, examples):
        seqs = [ex["input_ids"] for ex in examples]
        width = max(len(s) for s in seqs) - 1
        input_ids, labels, bar_ids, pos_ids, masks = [], [], [], [], []
        for s in seqs:
            inp = s[:-1] + [PAD] * (width - len(s) + 1)
            tgt = s[1:] + [self.label_pad] * (width - len(s) + 1)
            bars, poss = [], []
            bar, pos = 0, 0
            for tok in inp:
                if tok == BAR:
                    bar += 1
                    pos = 0
                elif is_position(tok):
                    pos = tok - POS0 + 1
                bars.append(bar)
                poss.append(pos)
            mask = []
            for i in range(width):
                row = []
                for j in range(width):
                    row.append(j <= i and inp[j] != PAD and bars[i] - bars[j] <= self.bar_window)
                mask.append(row)
            input_ids.append(inp)
            labels.append(tgt)
            bar_ids.append([min(b, self.max_bars - 1) for b in bars])
            pos_ids.append(poss)
            masks.append(mask)
        return {
            "input_ids": torch.tensor(input_ids, dtype=torch.long),
            "labels": torch.tensor(labels, dtype=torch.long),
            "bar_ids": torch.tensor(bar_ids, dtype=torch.long),
            "position_ids": torch.tensor(pos_ids, dtype=torch.long),
            "attention_mask": torch.tensor(masks, dtype=torch.bool),
        }
