"""B-mode post-processing as torchvision-style transforms.

Frames are (depth, lines) arrays of envelope amplitudes as the beamformer hands them out
(uint16 counts). Each transform takes and returns a numpy array, except ToTensor.
"""
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


class LogCompress:
    """Envelope counts -> dB below the frame maximum, clipped to the dynamic range, mapped to [0, 1]."""

    def __init__(self, dynamic_range_db=60.0, floor=1.0):
        self.dynamic_range_db = float(dynamic_range_db)
        self.floor = floor

    def __call__(self, env):
        env = np.maximum(env.astype(np.float32), np.float32(self.floor))
        db = np.float32(20.0) * np.log10(env / env.max())
        db = np.clip(db, -self.dynamic_range_db, 0.0)
        return (db + np.float32(self.dynamic_range_db)) / np.float32(self.dynamic_range_db)

    def __repr__(self):
        return f"LogCompress(dynamic_range_db={self.dynamic_range_db})"


class TimeGainCompensation:
    """Depth-dependent gain (dB/cm of depth), applied to the log-compressed image."""

    def __init__(self, db_per_cm, cm_per_sample, dynamic_range_db):
        self.db_per_cm = float(db_per_cm)
        self.cm_per_sample = float(cm_per_sample)
        self.dynamic_range_db = float(dynamic_range_db)

    def __call__(self, img):
        depth_cm = np.arange(img.shape[0], dtype=np.float32) * np.float32(self.cm_per_sample)
        gain = (depth_cm * np.float32(self.db_per_cm / self.dynamic_range_db))[:, None]
        return np.clip(img + gain, 0.0, 1.0).astype(np.float32)

    def __repr__(self):
        return f"TimeGainCompensation(db_per_cm={self.db_per_cm})"


class RandomDepthCrop:
    """Random axial window of `size` samples (all scan lines kept)."""

    def __init__(self, size):
        self.size = int(size)

    def __call__(self, img):
        depth = img.shape[0]
        if depth <= self.size:
            return img
        top = int(torch.randint(0, depth - self.size + 1, (1,)).item())
        return img[top:top + self.size]

    def __repr__(self):
        return f"RandomDepthCrop(size={self.size})"


class RandomLateralFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(1).item() < self.p:
            return img[:, ::-1]
        return img

    def __repr__(self):
        return f"RandomLateralFlip(p={self.p})"


class SpeckleMedian3x3:
    """3x3 median filter against speckle; borders replicate the edge pixel."""

    def __call__(self, img):
        h, w = img.shape
        rows = img.tolist()
        out = []
        for i in range(h):
            up, mid, down = rows[max(i - 1, 0)], rows[i], rows[min(i + 1, h - 1)]
            line = []
            for j in range(w):
                lo, hi = max(j - 1, 0), min(j + 2, w)
                window = up[lo:hi] + mid[lo:hi] + down[lo:hi]
                if j == 0:
                    window += [up[0], mid[0], down[0]]
                elif j == w - 1:
                    window += [up[-1], mid[-1], down[-1]]
                window.sort()
                line.append(window[4])
            out.append(line)
        return np.array(out, dtype=np.float32)

    def __repr__(self):
        return "SpeckleMedian3x3()"


class Standardize:
    def __init__(self, mean, std):
        self.mean, self.std = np.float32(mean), np.float32(std)

    def __call__(self, img):
        return (img - self.mean) / self.std


class ToTensor:
    def __call__(self, img):
        return torch.from_numpy(np.ascontiguousarray(img, dtype=np.float32)).unsqueeze(0)
