"""Small torchvision-style transforms working on uint8 HxW numpy "images"."""
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomHorizontalFlip:
    def __init__(self, p=0.5, generator=None):
        self.p = p
        self.generator = generator

    def __call__(self, img):
        if torch.rand(1, generator=self.generator).item() < self.p:
            return img[:, ::-1]
        return img

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class RandomVerticalFlip(RandomHorizontalFlip):
    def __call__(self, img):
        if torch.rand(1, generator=self.generator).item() < self.p:
            return img[::-1, :]
        return img

    def __repr__(self):
        return f"RandomVerticalFlip(p={self.p})"


def _grey_erode(rows, r):
    """Grey-level erosion with a (2r+1)^2 square; the window is clipped at the border."""
    h, w = len(rows), len(rows[0])
    out = []
    for i in range(h):
        top, bottom = max(0, i - r), min(h, i + r + 1)
        band = rows[top:bottom]
        out_row = []
        for j in range(w):
            left, right = max(0, j - r), min(w, j + r + 1)
            out_row.append(min(min(row[left:right]) for row in band))
        out.append(out_row)
    return out


def _grey_dilate(rows, r):
    h, w = len(rows), len(rows[0])
    out = []
    for i in range(h):
        top, bottom = max(0, i - r), min(h, i + r + 1)
        band = rows[top:bottom]
        out_row = []
        for j in range(w):
            left, right = max(0, j - r), min(w, j + r + 1)
            out_row.append(max(max(row[left:right]) for row in band))
        out.append(out_row)
    return out


class WhiteTopHat:
    """image - opening(image): keeps bright details smaller than the structuring element
    (exudates) and, with the black top-hat, dark ones (microaneurysms).
    Returns a 3-channel list image: [original, white top-hat, black top-hat]."""

    def __init__(self, size=3):
        assert size % 2 == 1
        self.r = size // 2

    def __call__(self, img):
        rows = img.tolist()
        opened = _grey_dilate(_grey_erode(rows, self.r), self.r)
        closed = _grey_erode(_grey_dilate(rows, self.r), self.r)
        white = [[p - o for p, o in zip(pr, orow)] for pr, orow in zip(rows, opened)]
        black = [[c - p for p, c in zip(pr, crow)] for pr, crow in zip(rows, closed)]
        return [rows, white, black]

    def __repr__(self):
        return f"WhiteTopHat(size={2 * self.r + 1})"


class ToTensor:
    """uint8-valued nested lists (C, H, W) -> float tensor in [0, 1]."""

    def __call__(self, chans):
        return torch.tensor(chans, dtype=torch.float32).div_(255.0)

    def __repr__(self):
        return "ToTensor()"


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, t):
        return (t - self.mean) / self.std

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std})"
