"""Frame transforms: threshold, sliding-window lane search + polynomial fit, resize, tensor."""
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


class Threshold:
    """Binary mask of bright (lane paint) pixels."""

    def __init__(self, thresh):
        self.thresh = thresh

    def __call__(self, sample):
        sample["binary"] = (sample["frame"] > self.thresh).astype(np.uint8)
        return sample

    def __repr__(self):
        return f"Threshold(thresh={self.thresh})"


class SlidingWindowLaneFit:
    """Classic lane finder: column histogram of the lower part of the frame gives the two lane bases,
    then windows are stacked up the frame, each re-centred on the mean x of the pixels it caught.
    The pixels of each lane are fitted with x = a*y^2 + b*y + c."""

    def __init__(self, n_windows=9, margin=12, minpix=20, hist_fraction=0.5):
        self.n_windows = n_windows
        self.margin = margin
        self.minpix = minpix
        self.hist_fraction = hist_fraction

    def __repr__(self):
        return (f"SlidingWindowLaneFit(n_windows={self.n_windows}, margin={self.margin}, "
                f"minpix={self.minpix})")

    def find_bases(self, binary):
        h, w = binary.shape
        histogram = np.sum(binary[int(h * (1 - self.hist_fraction)):, :], axis=0)
        midpoint = w // 2
        left_base = int(np.argmax(histogram[:midpoint]))
        right_base = int(np.argmax(histogram[midpoint:])) + midpoint
        return left_base, right_base

    def search(self, binary, base):
        h = binary.shape[0]
        window_height = h // self.n_windows
        nonzero = binary.nonzero()
        nonzeroy = nonzero[0]
        nonzerox = nonzero[1]
        x_current = base
        lane_inds = []
        for window in range(self.n_windows):
            win_y_low = h - (window + 1) * window_height
            win_y_high = h - window * window_height
            win_x_low = x_current - self.margin
            win_x_high = x_current + self.margin
            good_inds = [i for i, (y, x) in enumerate(zip(nonzeroy, nonzerox))
                         if win_y_low <= y < win_y_high and win_x_low <= x < win_x_high]
            lane_inds.extend(good_inds)
            if len(good_inds) > self.minpix:
                x_current = int(np.mean(nonzerox[good_inds]))
        lane_inds = np.asarray(lane_inds, dtype=np.int64)
        return nonzeroy[lane_inds], nonzerox[lane_inds]

    def fit(self, lane_y, lane_x, h, w, base):
        if len(lane_y) < 3:
            return np.array([0.0, 0.0, base / w]), 0
        coeffs = np.polyfit(np.asarray(lane_y, dtype=np.float64) / h,
                            np.asarray(lane_x, dtype=np.float64) / w, 2)
        return coeffs, len(lane_y)

    def __call__(self, sample):
        binary = sample["binary"]
        h, w = binary.shape
        left_base, right_base = self.find_bases(binary)
        fits, counts = [], []
        for base in (left_base, right_base):
            ly, lx = self.search(binary, base)
            coeffs, n = self.fit(ly, lx, h, w, base)
            fits.append(coeffs)
            counts.append(n)
        sample["target"] = np.concatenate(fits).astype(np.float32)
        sample["lane_pixels"] = counts
        return sample


class Downsample:
    """Block-average the frame by an integer factor (the network sees a small image)."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, sample):
        f = self.factor
        frame = sample["frame"].astype(np.float32)
        h, w = frame.shape
        sample["image"] = frame.reshape(h // f, f, w // f, f).mean(axis=(1, 3)) / 255.0
        return sample

    def __repr__(self):
        return f"Downsample(factor={self.factor})"


class ToTensor:
    def __call__(self, sample):
        return {
            "image": torch.from_numpy(np.ascontiguousarray(sample["image"]))[None],
            "target": torch.from_numpy(sample["target"]),
            "lane_pixels": torch.tensor(sample["lane_pixels"], dtype=torch.int64),
        }

    def __repr__(self):
        return "ToTensor()"
