import torch
from torch.utils.data import Dataset

from .synth import make_fundus_patches
from . import transforms as T


class FundusPatches(Dataset):
    def __init__(self, cfg, transform=None, seed=0):
        d = cfg["data"]
        self.images, self.labels = make_fundus_patches(
            d["num_images"], d["image_size"], d["num_classes"], seed)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[idx])


def build_transform(cfg, generator):
    t = cfg["transforms"]
    return T.Compose([
        T.RandomHorizontalFlip(t["hflip_p"], generator=generator),
        T.RandomVerticalFlip(t["vflip_p"], generator=generator),
        T.WhiteTopHat(t["tophat_size"]),
        T.ToTensor(),
        T.Normalize(t["mean"], t["std"]),
    ])
