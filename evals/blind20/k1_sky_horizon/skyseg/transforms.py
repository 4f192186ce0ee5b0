"""Transforms for the sky-cue classifier, torchvision style (callables over a sample dict)."""
import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, sample):
        if torch.rand(1).item() < self.p:
            sample["image"] = np.ascontiguousarray(sample["image"][:, ::-1])
            sample["true_horizon"] = np.ascontiguousarray(sample["true_horizon"][::-1])
        return sample

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class RandomBrightness:
    """Shift all channels by one integer offset drawn in [-delta, delta]."""

    def __init__(self, delta):
        self.delta = int(delta)

    def __call__(self, sample):
        shift = int(torch.randint(-self.delta, self.delta + 1, (1,)).item())
        img = sample["image"].astype(np.int16) + shift
        sample["image"] = np.clip(img, 0, 255).astype(np.uint8)
        return sample

    def __repr__(self):
        return f"RandomBrightness(delta={self.delta})"


class SkyFeatures:
    """Sky segmentation cues.

    * ``ratio``: per-pixel (blue + 1) / (red + 1); clear sky is strongly blue, ground is not.
    * ``variance``: luma variance in a ``window`` x ``window`` neighbourhood (clipped at the borders);
      sky is smooth, vegetation and rock are textured.
    * ``horizon``: per image column, the first row from the top that looks like neither.
    """

    def __init__(self, window=5, ratio_thresh=1.1, var_thresh=40.0):
        self.window = window
        self.ratio_thresh = ratio_thresh
        self.var_thresh = var_thresh

    @staticmethod
    def luma(img):
        # integer BT.601-ish luma, 8-bit fixed point
        r = img[..., 0].astype(np.int32)
        g = img[..., 1].astype(np.int32)
        b = img[..., 2].astype(np.int32)
        return (r * 77 + g * 150 + b * 29) >> 8

    def __call__(self, sample):
        img = sample["image"]
        h, w, _ = img.shape
        rad = self.window // 2
        luma = self.luma(img)

        ratio = np.zeros((h, w), dtype=np.float64)
        variance = np.zeros((h, w), dtype=np.float64)
        for y in range(h):
            y0, y1 = max(0, y - rad), min(h, y + rad + 1)
            for x in range(w):
                x0, x1 = max(0, x - rad), min(w, x + rad + 1)
                red, _, blue = img[y, x]
                ratio[y, x] = (float(blue) + 1.0) / (float(red) + 1.0)

                patch = luma[y0:y1, x0:x1]
                n = patch.size
                mean = patch.sum() / n
                variance[y, x] = (patch * patch).sum() / n - mean * mean

        sample["ratio"] = ratio
        sample["variance"] = variance
        sample["horizon"] = self.estimate_horizon(ratio, variance)
        return sample

    def estimate_horizon(self, ratio, variance):
        h, w = ratio.shape
        horizon = np.empty(w, dtype=np.int64)
        for x in range(w):
            y = 0
            while y < h and (ratio[y, x] >= self.ratio_thresh or variance[y, x] <= self.var_thresh):
                y += 1
            horizon[x] = y
        return horizon

    def __repr__(self):
        return (f"SkyFeatures(window={self.window}, ratio_thresh={self.ratio_thresh}, "
                f"var_thresh={self.var_thresh})")


class ToFeatureTensor:
    """Stack the cues into a float32 (3, H, W) tensor plus normalised horizon targets."""

    def __call__(self, sample):
        h, w = sample["ratio"].shape
        log_ratio = np.log(sample["ratio"])
        texture = np.sqrt(np.maximum(sample["variance"], 0.0)) / 32.0
        sky_mask = (np.arange(h)[:, None] < sample["horizon"][None, :]).astype(np.float64)
        feats = np.stack([log_ratio, texture, sky_mask]).astype(np.float32)
        return {
            "features": torch.from_numpy(feats),
            "horizon": torch.from_numpy((sample["horizon"] / h).astype(np.float32)),
            "true_horizon": torch.from_numpy((sample["true_horizon"] / h).astype(np.float32)),
            "label": torch.tensor(sample["label"], dtype=torch.long),
        }

    def __repr__(self):
        return "ToFeatureTensor()"


def build_transforms(cfg):
    sky = cfg.get("sky", {})
    return Compose([
        RandomHorizontalFlip(cfg.get("hflip_p", 0.5)),
        RandomBrightness(cfg.get("brightness", 0)),
        SkyFeatures(window=sky.get("window", 5), ratio_thresh=sky.get("ratio_thresh", 1.1),
                    var_thresh=sky.get("var_thresh", 40.0)),
        ToFeatureTensor(),
    ])
