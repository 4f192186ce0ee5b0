import torch


class PaddingCollator:
    """Pads `input_ids` / `attention_mask` to the longest household in the batch (HF DataCollatorWithPadding style)."""

    def __init__(self, pad_id=0):
        self.pad_id = pad_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((len(features), longest), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(features), longest), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            attention_mask[i, :n] = torch.tensor(f["attention_mask"], dtype=torch.long)
        labels = torch.tensor([f["labels"] for f in features], dtype=torch.long)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
