"""torchvision-style transforms over a sample dict."""
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        body = "".join(f"\n    {t!r}," for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class DecodePGM:
    """Binary PGM (P5, maxval 255) bytes -> uint8 array under sample['gray']."""

    def __call__(self, sample):
        data = sample.pop("pgm")
        fields, pos = [], 0
        while len(fields) < 4:
            while data[pos:pos + 1].isspace():
                pos += 1
            if data[pos:pos + 1] == b"#":
                pos = data.index(b"\n", pos) + 1
                continue
            end = pos
            while not data[end:end + 1].isspace():
                end += 1
            fields.append(data[pos:end])
            pos = end
        magic, w, h, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
        if magic != b"P5" or maxval != 255:
            raise ValueError("only 8-bit binary PGM is supported")
        pos += 1
        sample["gray"] = np.frombuffer(data, dtype=np.uint8, count=w * h, offset=pos).reshape(h, w)
        return sample


class RandomCrop:
    def __init__(self, size, rng):
        self.size = size
        self.rng = rng

    def __call__(self, sample):
        gray = sample["gray"]
        h, w = gray.shape
        top = int(self.rng.integers(0, h - self.size + 1))
        left = int(self.rng.integers(0, w - self.size + 1))
        sample["gray"] = gray[top:top + self.size, left:left + self.size]
        return sample


class Downsample:
    """Ink coverage over factor x factor cells."""

    def __init__(self, factor=2):
        self.factor = factor

    def __call__(self, sample):
        ink = sample["ink"].astype(np.float32)
        f = self.factor
        h, w = ink.shape
        sample["coverage"] = ink.reshape(h // f, f, w // f, f).mean(axis=(1, 3))
        return sample


class ToTensor:
    def __call__(self, sample):
        return {
            "image": torch.from_numpy(np.ascontiguousarray(sample["coverage"]))[None],
            "label": torch.tensor(sample["label"], dtype=torch.long),
            "angle": torch.tensor(sample["angle"], dtype=torch.float32),
        }
