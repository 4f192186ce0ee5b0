"""B-mode preprocessing transforms (torchvision-style callables composed with Compose)."""
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, frame):
        for t in self.transforms:
            frame = t(frame)
        return frame

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class LogCompression:
    """Envelope (uint16 counts) -> dB below the frame maximum, clipped to the dynamic range, in [0, 1]."""

    def __init__(self, dynamic_range_db=60.0, eps=1e-6):
        self.dynamic_range_db = float(dynamic_range_db)
        self.eps = eps

    def __call__(self, envelope):
        env = envelope.astype(np.float64)
        ref = env.max() + self.eps
        db = 20.0 * np.log10(env / ref + self.eps)
        db = np.clip(db, -self.dynamic_range_db, 0.0)
        return ((db + self.dynamic_range_db) / self.dynamic_range_db).astype(np.float32)

    def __repr__(self):
        return f"LogCompression(dynamic_range_db={self.dynamic_range_db})"


class TimeGainCompensation:
    """Depth-dependent gain: a linear dB/cm ramp whose slope is jittered per frame."""

    def __init__(self, db_per_cm, depth_cm, jitter_db=0.0, generator=None):
        self.db_per_cm = float(db_per_cm)
        self.depth_cm = float(depth_cm)
        self.jitter_db = float(jitter_db)
        self.generator = generator

    def __call__(self, img):
        depth = img.shape[0]
        slope = self.db_per_cm
        if self.jitter_db:
            slope += self.jitter_db * (2.0 * float(torch.rand((), generator=self.generator)) - 1.0)
        z = np.arange(depth, dtype=np.float64) * (self.depth_cm / depth)
        gain = np.power(10.0, slope * z / 20.0 / 8.0).astype(np.float32)
        out = img * gain[:, None]
        return np.minimum(out, np.float32(1.0))

    def __repr__(self):
        return f"TimeGainCompensation(db_per_cm={self.db_per_cm}, jitter_db={self.jitter_db})"


class SpeckleMedian3x3:
    """3x3 median filter for speckle reduction; borders replicate the edge pixel."""

    def __call__(self, img):
        rows = img.tolist()
        h, w = len(rows), len(rows[0])
        out = []
        for i in range(h):
            up = rows[i - 1] if i > 0 else rows[i]
            mid = rows[i]
            down = rows[i + 1] if i + 1 < h else rows[i]
            line = []
            for j in range(w):
                lo = j - 1 if j > 0 else j
                hi = j + 1 if j + 1 < w else j
                window = [up[lo], up[j], up[hi], mid[lo], mid[j], mid[hi], down[lo], down[j], down[hi]]
                window.sort()
                line.append(window[4])
            out.append(line)
        return np.array(out, dtype=np.float32)

    def __repr__(self):
        return "SpeckleMedian3x3()"


class RandomDepthCrop:
    """Keep `size` consecutive depth samples starting at a random depth."""

    def __init__(self, size, generator=None):
        self.size = int(size)
        self.generator = generator

    def __call__(self, img):
        depth = img.shape[0]
        if depth <= self.size:
            return img
        top = int(torch.randint(0, depth - self.size + 1, (1,), generator=self.generator))
        return img[top:top + self.size]

    def __repr__(self):
        return f"RandomDepthCrop(size={self.size})"


class ToTensor:
    def __call__(self, img):
        return torch.from_numpy(np.ascontiguousarray(img)).unsqueeze(0)

    def __repr__(self):
        return "ToTensor()"
