"""Synthetic image pairs with a smooth ground-truth flow (FlyingChairs in spirit, tiny in size).

The pairs are rendered once, in chunks, and kept as 8-bit frames like the decoded PNGs of a real set.
"""
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset


def render_pairs(n, h, w, max_flow, sparse_valid, generator):
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
    base_grid = torch.stack([xs, ys], dim=-1)  # H W 2, (x, y) as grid_sample wants
    texture = torch.rand(n, 3, h // 4, w // 4, generator=generator)
    img1 = F.interpolate(texture, size=(h, w), mode="bilinear", align_corners=False)
    coarse = (torch.rand(n, 2, 3, 4, generator=generator) * 2 - 1) * max_flow
    flow = F.interpolate(coarse, size=(h, w), mode="bilinear", align_corners=True)  # n 2 H W, px
    # backward warp: img2(x + flow) = img1(x)  ~  sample img1 at x - flow
    shift = torch.stack([flow[:, 0] * 2 / (w - 1), flow[:, 1] * 2 / (h - 1)], dim=-1)
    img2 = F.grid_sample(img1, base_grid - shift, mode="bilinear", padding_mode="border", align_corners=True)
    valid = torch.rand(n, h, w, generator=generator) < sparse_valid
    to_u8 = lambda im: (im.clamp(0, 1) * 255).round().to(torch.uint8)
    return to_u8(img1), to_u8(img2), flow, valid


class SyntheticFlowPairs(Dataset):
    def __init__(self, num_pairs, size, max_flow, sparse_valid, seed, chunk=100):
        g = torch.Generator().manual_seed(seed)
        parts = [render_pairs(min(chunk, num_pairs - i), *size, max_flow, sparse_valid, g)
                 for i in range(0, num_pairs, chunk)]
        self.image1, self.image2, self.flow, self.valid = (torch.cat(p) for p in zip(*parts))

    def __len__(self):
        return len(self.flow)

    def __getitem__(self, idx):
        return {"image1": self.image1[idx], "image2": self.image2[idx], "flow": self.flow[idx], "valid": self.valid[idx]}
