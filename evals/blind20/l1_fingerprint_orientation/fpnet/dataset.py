from torch.utils.data import Dataset

from .synth import make_scan


class FingerprintDataset(Dataset):
    """Synthetic scans, rendered once from (seed, index) and kept in memory like a loaded .npz."""

    def __init__(self, num_samples, image_size=64, noise_std=18.0, seed=0, transform=None):
        self.image_size = image_size
        self.transform = transform
        scans = [make_scan(i, image_size, noise_std, seed) for i in range(num_samples)]
        self.images = [img for img, _ in scans]
        self.labels = [label for _, label in scans]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        sample = {"image": self.images[index], "label": self.labels[index]}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
