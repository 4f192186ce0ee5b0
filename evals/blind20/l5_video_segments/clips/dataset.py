from torch.utils.data import Dataset


class ClipDataset(Dataset):
    """Each item is a reference to a whole decoded video; clips are cut in the collate function."""

    def __init__(self, store, clips_per_epoch):
        self.store = store
        self.clips_per_epoch = clips_per_epoch

    def __len__(self):
        return self.clips_per_epoch

    def __getitem__(self, index):
        return self.store[index % len(self.store)]
