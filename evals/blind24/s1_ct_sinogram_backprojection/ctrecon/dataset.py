from torch.utils.data import Dataset

from .phantom import make_sinograms


class SinogramDataset(Dataset):
    def __init__(self, n, n_angles, n_det, noise, seed, transform=None):
        self.theta, self.det, self.sinos, self.labels = make_sinograms(n, n_angles, n_det, noise, seed)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        sample = {"sinogram": self.sinos[idx], "label": int(self.labels[idx])}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
