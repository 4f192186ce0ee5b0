import string
import unicodedata
from dataclasses import dataclass
from typing import Any, Dict, List

import torch

_PUNCT = string.punctuation + "«»„“”‘’"


def strip_accents(text):
    """Drop combining marks after canonical decomposition (as BERT's BasicTokenizer does)."""
    return "".join(ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn")


def normalize_token(token):
    """Strip accents, casefold and strip surrounding punctuation: `BERLÍN,` on the source side matches `Berlin`."""
    return strip_accents(token).casefold().strip(_PUNCT)


@dataclass
class DataCollatorForCopySeq2Seq:
    """Pads source/target, builds shifted decoder inputs and the copy (alignment) mask.

    copy_mask[b, i, j] = 1 when target token i of example b can be copied from source token j.
    """

    pad_token_id: int
    bos_token_id: int
    eos_token_id: int
    label_pad_token_id: int = -100

    def __call__(self, features: List[Dict[str, Any]]) -> Dict[str, torch.Tensor]:
        bsz = len(features)
        max_src = max(len(f["src_ids"]) for f in features)
        max_tgt = max(len(f["tgt_ids"]) for f in features) + 1  # + </s>

        input_ids = torch.full((bsz, max_src), self.pad_token_id, dtype=torch.long)
        attention_mask = torch.zeros((bsz, max_src), dtype=torch.long)
        decoder_input_ids = torch.full((bsz, max_tgt), self.pad_token_id, dtype=torch.long)
        labels = torch.full((bsz, max_tgt), self.label_pad_token_id, dtype=torch.long)
        copy_mask = torch.zeros((bsz, max_tgt, max_src), dtype=torch.float32)

        for b, f in enumerate(features):
            src = f["src_ids"]
            tgt = f["tgt_ids"] + [self.eos_token_id]
            input_ids[b, : len(src)] = torch.tensor(src, dtype=torch.long)
            attention_mask[b, : len(src)] = 1
            decoder_input_ids[b, : len(tgt)] = torch.tensor([self.bos_token_id] + tgt[:-1], dtype=torch.long)
            labels[b, : len(tgt)] = torch.tensor(tgt, dtype=torch.long)
            for i, tgt_tok in enumerate(f["tgt_tokens"]):
                for j, src_tok in enumerate(f["src_tokens"]):
                    if normalize_token(tgt_tok) == normalize_token(src_tok):
                        copy_mask[b, i, j] = 1.0

        return {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "decoder_input_ids": decoder_input_ids,
            "labels": labels,
            "copy_mask": copy_mask,
        }
