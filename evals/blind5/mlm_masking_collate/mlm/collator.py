"""Dynamic padding + BERT masking (80% [MASK], 10% random token, 10% unchanged)."""
import torch


class DataCollatorForMLM:
    def __init__(self, tokenizer, mlm_probability=0.15, pad_to_multiple_of=None, seed=0):
        self.tokenizer = tokenizer
        self.mlm_probability = mlm_probability
        self.pad_to_multiple_of = pad_to_multiple_of
        self.generator = torch.Generator()
        self.generator.manual_seed(seed)

    def _padded_length(self, examples):
        longest = max(len(e["input_ids"]) for e in examples)
        m = self.pad_to_multiple_of
        return longest if not m else ((longest + m - 1) // m) * m

    def mask_tokens(self, ids):
        """One sequence: returns (masked ids, labels) as lists."""
        n = len(ids)
        special = [1 if tok in self.tokenizer.all_special_ids else 0 for tok in ids]
        probs = torch.rand(n, generator=self.generator).tolist()
        kinds = torch.rand(n, generator=self.generator).tolist()
        randoms = torch.randint(len(self.tokenizer), (n,), generator=self.generator).tolist()
        inputs, labels = [], []
        for tok, is_special, p, kind, rnd in zip(ids, special, probs, kinds, randoms):
            if is_special or p >= self.mlm_probability:
                inputs.append(tok)
                labels.append(-100)
            elif kind < 0.8:
                inputs.append(self.tokenizer.mask_token_id)
                labels.append(tok)
            elif kind < 0.9:
                inputs.append(rnd)
                labels.append(tok)
            else:
                inputs.append(tok)
                labels.append(tok)
        return inputs, labels

    def __call__(self, examples):
        length = self._padded_length(examples)
        pad_id = self.tokenizer.pad_token_id
        input_ids, labels, attention_mask = [], [], []
        for ex in examples:
            ids, lab = self.mask_tokens(ex["input_ids"])
            pad = length - len(ids)
            input_ids.append(ids + [pad_id] * pad)
            labels.append(lab + [-100] * pad)
            attention_mask.append([1] * len(ids) + [0] * pad)
        return {
            "input_ids": torch.tensor(input_ids),
            "labels": torch.tensor(labels),
            "attention_mask": torch.tensor(attention_mask),
        }
