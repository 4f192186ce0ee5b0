import torch


class PadCollator:
    """Sorts a batch by length (longest first) and pads it; returns ids, mask, lengths, labels."""

    def __init__(self, pad_id=0):
        self.pad_id = pad_id

    def __call__(self, batch):
        batch = sorted(batch, key=lambda item: len(item["input_ids"]), reverse=True)
        max_len = len(batch[0]["input_ids"])
        input_ids = torch.full((len(batch), max_len), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(batch), max_len), dtype=torch.long)
        lengths = torch.zeros(len(batch), dtype=torch.long)
        labels = torch.zeros(len(batch), dtype=torch.long)
        for i, item in enumerate(batch):
            for j, tok in enumerate(item["input_ids"]):
                input_ids[i, j] = tok
                attention_mask[i, j] = 1
            lengths[i] = len(item["input_ids"])
            labels[i] = item["label"]
        return {"input_ids": input_ids, "attention_mask": attention_mask, "lengths": lengths, "labels": labels}
