"""Batch collation: pad the features and align every source subword to its audio frames."""
import torch

PAD, BOS, EOS = 0, 1, 2


class AlignCollator:
    """Builds, per batch:
      feats      (B, T, n_mels)  zero-padded features
      feat_mask  (B, T)          True on real frames
      tokens     (B, L)          source subword ids, PAD-padded
      tok2frame  (B, L, T)       True where frame t belongs to token l
      durations  (B, L)          frames per token
      targets    (B, M)          translation ids with BOS/EOS, PAD-padded
    A word's [start, end) frames are split evenly over its subwords.
    """

    def __init__(self, frame_rate, n_mels):
        self.frame_rate = frame_rate
        self.n_mels = n_mels

    def _frame(self, seconds):
        return int(round(seconds * self.frame_rate))

    def __call__(self, batch):
        B = len(batch)
        T = max(len(item["feats"]) for item in batch)
        L = max(sum(len(p) for p in item["pieces"]) for item in batch)
        M = max(len(item["target"]) for item in batch) + 2

        feats = torch.zeros(B, T, self.n_mels)
        feat_mask = torch.zeros(B, T, dtype=torch.bool)
        for b, item in enumerate(batch):
            for t, frame in enumerate(item["feats"]):
                feats[b, t] = torch.from_numpy(frame)
                feat_mask[b, t] = True

        tokens = torch.full((B, L), PAD, dtype=torch.long)
        tok2frame = torch.zeros(B, L, T, dtype=torch.bool)
        durations = torch.zeros(B, L, dtype=torch.long)
        for b, item in enumerate(batch):
            n_frames = len(item["feats"])
            j = 0
            for pieces, (start, end) in zip(item["pieces"], item["timings"]):
                f0 = self._frame(start)
                f1 = max(f0 + 1, self._frame(end))
                n = len(pieces)
                for k, piece in enumerate(pieces):
                    a = f0 + (f1 - f0) * k // n
                    e = max(a + 1, f0 + (f1 - f0) * (k + 1) // n)
                    tokens[b, j] = piece
                    for f in range(a, min(e, n_frames)):
                        tok2frame[b, j, f] = True
                    durations[b, j] = max(0, min(e, n_frames) - a)
                    j += 1

        targets = torch.full((B, M), PAD, dtype=torch.long)
        for b, item in enumerate(batch):
            seq = [BOS] + item["target"] + [EOS]
            for m, tok in enumerate(seq):
                targets[b, m] = tok

        return {"feats": feats, "feat_mask": feat_mask, "tokens": tokens, "tok2frame": tok2frame,
                "durations": durations, "targets": targets}
