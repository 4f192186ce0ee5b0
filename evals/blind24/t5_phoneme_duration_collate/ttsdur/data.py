import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset, Sampler


class UtteranceDataset(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]

    def frame_length(self, idx):
        return len(self.items[idx]["mel"])


class BucketBatchSampler(Sampler):
    """Batches of similar length: sort by frames, cut into buckets of `bucket_size`
    batches, shuffle inside each bucket, then shuffle the batches."""

    def __init__(self, lengths, batch_size, bucket_size, generator):
        self.lengths = lengths
        self.batch_size = batch_size
        self.bucket_size = bucket_size
        self.generator = generator

    def __len__(self):
        return len(self.lengths) // self.batch_size

    def __iter__(self):
        order = sorted(range(len(self.lengths)), key=lambda i: (self.lengths[i], i))
        span = self.batch_size * self.bucket_size
        batches = []
        for start in range(0, len(order), span):
            bucket = order[start:start + span]
            perm = torch.randperm(len(bucket), generator=self.generator).tolist()
            bucket = [bucket[j] for j in perm]
            for b in range(0, len(bucket) - self.batch_size + 1, self.batch_size):
                batches.append(bucket[b:b + self.batch_size])
        for j in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[j]


class DurationCollate:
    """Expand phoneme-level inputs to frames using the durations.

    Returns phoneme-level ids and mask, frame-level phoneme labels, the frame's
    index inside its phoneme, its relative position ((k + 0.5) / d), the phoneme
    F0 per frame, the frame mask, a boolean phoneme-to-frame alignment mask and the
    padded mel targets.
    """

    def __init__(self, pad_id=0, max_pos=15):
        self.pad_id = pad_id
        self.max_pos = max_pos

    def __call__(self, batch):
        max_ph = max(len(it["phonemes"]) for it in batch)
        max_frames = max(sum(it["durations"]) for it in batch)
        phonemes, ph_mask = [], []
        frame_ph, frame_pos, frame_rel, frame_pitch, frame_mask, align = [], [], [], [], [], []
        for it in batch:
            ph_row, pos_row, rel_row, f0_row, m_row = [], [], [], [], []
            spans = []
            for p, d, f0 in zip(it["phonemes"], it["durations"], it["pitch"]):
                spans.append((len(ph_row), len(ph_row) + d))
                for k in range(d):
                    ph_row.append(p)
                    pos_row.append(min(k, self.max_pos))
                    rel_row.append((k + 0.5) / d)
                    f0_row.append(f0)
                    m_row.append(True)
            pad = max_frames - len(ph_row)
            frame_ph.append(ph_row + [self.pad_id] * pad)
            frame_pos.append(pos_row + [0] * pad)
            frame_rel.append(rel_row + [0.0] * pad)
            frame_pitch.append(f0_row + [0.0] * pad)
            frame_mask.append(m_row + [False] * pad)
            rows = []
            for s, e in spans:
                rows.append([s <= f < e for f in range(max_frames)])
            for _ in range(max_ph - len(spans)):
                rows.append([False] * max_frames)
            align.append(rows)
            n = len(it["phonemes"])
            phonemes.append(it["phonemes"] + [self.pad_id] * (max_ph - n))
            ph_mask.append([True] * n + [False] * (max_ph - n))
        return {
            "phonemes": torch.tensor(phonemes, dtype=torch.long),
            "phoneme_mask": torch.tensor(ph_mask, dtype=torch.bool),
            "durations": pad_sequence([torch.tensor(it["durations"]) for it in batch], batch_first=True),
            "frame_phonemes": torch.tensor(frame_ph, dtype=torch.long),
            "frame_pos": torch.tensor(frame_pos, dtype=torch.long),
            "frame_rel": torch.tensor(frame_rel, dtype=torch.float32),
            "frame_pitch": torch.tensor(frame_pitch, dtype=torch.float32),
            "frame_mask": torch.tensor(frame_mask, dtype=torch.bool),
            "alignment": torch.tensor(align, dtype=torch.bool),
            "mel": pad_sequence([torch.from_numpy(it["mel"]) for it in batch], batch_first=True),
        }
