from torch.utils.data import Dataset


class PagePhotoDataset(Dataset):
    def __init__(self, pages, transform=None):
        self.pages = pages
        self.transform = transform

    def __len__(self):
        return len(self.pages)

    def __getitem__(self, idx):
        page = self.pages[idx]
        sample = {"image": page["image"], "meta": page["meta"]}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample["image"], page["label"]
