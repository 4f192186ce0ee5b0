"""torchvision-style transforms for H&E tiles (rows of [r, g, b] pixels until ToTensor)."""
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}(\n{body}\n)"


class RandomRot90:
    """Rotate by k * 90 degrees counter-clockwise, k uniform in {0, 1, 2, 3}."""

    def __call__(self, rows):
        k = int(torch.randint(0, 4, (1,)))
        for _ in range(k):
            rows = [list(r) for r in zip(*rows)][::-1]
        return rows

    def __repr__(self):
        return "RandomRot90()"


class RandomFlip:
    def __init__(self, p_horizontal=0.5, p_vertical=0.5):
        self.p_h = p_horizontal
        self.p_v = p_vertical

    def __call__(self, rows):
        if torch.rand(1).item() < self.p_h:
            rows = [r[::-1] for r in rows]
        if torch.rand(1).item() < self.p_v:
            rows = rows[::-1]
        return rows

    def __repr__(self):
        return f"RandomFlip(p_horizontal={self.p_h}, p_vertical={self.p_v})"


class ToTensor:
    """Rows of pixels -> float CxHxW in [0, 1]."""

    def __call__(self, rows):
        return torch.tensor(rows, dtype=torch.float32).permute(2, 0, 1) / 255.0


class ColorJitter:
    """Brightness / contrast / saturation jitter on a CxHxW float tensor."""

    def __init__(self, brightness=0.1, contrast=0.1, saturation=0.1):
        self.b, self.c, self.s = brightness, contrast, saturation

    def __call__(self, img):
        f = 1.0 + (torch.rand(3) * 2.0 - 1.0) * torch.tensor([self.b, self.c, self.s])
        img = img * f[0]
        mean = img.mean()
        img = (img - mean) * f[1] + mean
        gray = (0.299 * img[0] + 0.587 * img[1] + 0.114 * img[2]).unsqueeze(0)
        img = (img - gray) * f[2] + gray
        return img.clamp(0.0, 1.0)

    def __repr__(self):
        return f"ColorJitter(brightness={self.b}, contrast={self.c}, saturation={self.s})"
