"""Sig-line tokenizer: split, expand abbreviations, fill slots, map words to ids (HF-like API)."""
import re

from .abbreviations import SIG_ABBREVIATIONS
from .corpus import DOSES, INDICATIONS, VERBS

SPLIT_RE = re.compile(r"[\s,;]+")
NUMBER_RE = re.compile(r"^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$")
EVERY_RE = re.compile(r"every (\d+)(?: to (\d+))? hours")
TIMES_PER_DAY = {"once daily": 1.0, "twice daily": 2.0, "three times daily": 3.0, "four times daily": 4.0,
                 "at bedtime": 1.0, "every morning": 1.0, "every evening": 1.0, "every other day": 0.5,
                 "twice a day": 2.0, "once weekly": 1.0 / 7.0}


def build_vocab(drug_names, special=("[PAD]", "[UNK]", "[CLS]")):
    words = set()
    for _, expansion in SIG_ABBREVIATIONS:
        words.update(expansion.split())
    for phrase in DOSES + INDICATIONS + VERBS:
        words.update(phrase.lower().split())
    words.update(str(i) for i in range(0, 61))
    words.update(["for", "a", "day", "every", "hours", "to", "food", "doses/day", "as", "needed", "with"])
    words.update(drug_names)
    return list(special) + sorted(words - set(special))


class SigTokenizer:
    def __init__(self, vocab, abbreviations=SIG_ABBREVIATIONS, lowercase=True,
                 unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]"):
        self.vocab = list(vocab)
        self.abbreviations = list(abbreviations)
        self.lowercase = lowercase
        self.unk_token, self.pad_token, self.cls_token = unk_token, pad_token, cls_token
        self.pad_token_id = self.vocab.index(pad_token)
        self.unk_token_id = self.vocab.index(unk_token)
        self.cls_token_id = self.vocab.index(cls_token)

    def __len__(self):
        return len(self.vocab)

    # -- normalisation ---------------------------------------------------------------------------
    def expand(self, raw):
        """Expand one raw token if it is a known abbreviation (an optional trailing '.' is allowed)."""
        for abbr, expansion in self.abbreviations:
            if re.match(rf"^{re.escape(abbr)}\.?$", raw, flags=re.IGNORECASE):
                return expansion
        return raw.lower() if self.lowercase else raw

    def tokenize(self, text):
        words = []
        for raw in SPLIT_RE.split(text.strip()):
            if raw:
                words.extend(self.expand(raw).split())
        return words

    def convert_tokens_to_ids(self, tokens):
        ids = []
        for tok in tokens:
            try:
                ids.append(self.vocab.index(tok))
            except ValueError:
                ids.append(self.unk_token_id)
        return ids

    # -- slots -----------------------------------------------------------------------------------
    @staticmethod
    def parse_slots(words):
        text = " ".join(words)
        dose = 0.0
        for w in words:
            m = NUMBER_RE.match(w)
            if m:
                dose = float(m.group(2) or m.group(1))
                break
        per_day = 0.0
        m = EVERY_RE.search(text)
        if m:
            per_day = 24.0 / float(m.group(1))
        else:
            for phrase, value in TIMES_PER_DAY.items():
                if phrase in text:
                    per_day = value
                    break
        return {"dose": dose, "per_day": per_day, "as_needed": float("as needed" in text)}

    def __call__(self, text, max_length=40, truncation=True):
        words = self.tokenize(text)
        ids = [self.cls_token_id] + self.convert_tokens_to_ids(words)
        if truncation:
            ids = ids[:max_length]
        slots = self.parse_slots(words)
        return {"input_ids": ids, "attention_mask": [1] * len(ids),
                "slot_values": [slots["dose"], slots["per_day"], slots["as_needed"]]}
