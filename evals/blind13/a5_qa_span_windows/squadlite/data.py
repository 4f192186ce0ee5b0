from torch.utils.data import Dataset


class QADataset(Dataset):
    """SQuAD-style records, returned as they are; the collator does the tokenisation."""

    def __init__(self, records):
        self.records = records

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        return self.records[idx]
