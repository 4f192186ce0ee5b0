import io

import numpy as np
import torch
from torch.utils.data import Dataset


class RemoteEmbeddings(Dataset):
    def __init__(self, client, keys):
        self.client = client
        self.keys = keys

    def __len__(self):
        return len(self.keys)

    def __getitem__(self, i):
        payload = self.client.get(self.keys[i])
        with np.load(io.BytesIO(payload)) as z:
            emb = torch.from_numpy(z["embedding"].copy())
            label = int(z["label"])
        return {"embedding": emb, "label": label}
