import torch
from torch.utils.data import Dataset


class SceneDataset(Dataset):
    def __init__(self, images, masks, augment=True, seed=0):
        self.images = images
        self.masks = masks
        self.augment = augment
        self.gen = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = torch.from_numpy(self.images[idx])
        mask = torch.from_numpy(self.masks[idx])
        if self.augment:
            if torch.rand(1, generator=self.gen).item() < 0.5:
                img, mask = img.flip(-1), mask.flip(-1)
            k = int(torch.randint(0, 4, (1,), generator=self.gen))
            img, mask = torch.rot90(img, k, (1, 2)), torch.rot90(mask, k, (0, 1))
        return img.contiguous(), mask.contiguous()
