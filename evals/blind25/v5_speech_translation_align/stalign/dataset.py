from torch.utils.data import Dataset


class STDataset(Dataset):
    def __init__(self, corpus):
        self.corpus = corpus

    def __len__(self):
        return len(self.corpus.utterances)

    def __getitem__(self, i):
        return self.corpus.utterances[i]
