"""Greedy longest-match SMILES tokenizer (atom-level, with bracket atoms as single tokens)."""
from .corpus import ATOMS

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
SINGLE = list("CNOSPFIBcnosp()[]=#-+\\/@.%0123456789")
BRACKETS = ["[nH]", "[NH+]", "[NH3+]", "[O-]", "[C@@H]", "[C@H]", "[Si]", "[Se]", "[2H]", "[13C]",
            "[Na+]", "[Cl-]", "[K+]", "[N+]", "[n+]", "[S-]", "[Li+]", "[Mg+2]", "[Ca+2]", "[Zn+2]",
            "[Fe+2]", "[Fe+3]", "[Cu+2]", "[Al+3]", "[NH2+]", "[NH-]", "[OH-]", "[SiH]", "[SiH2]",
            "[BH-]", "[BH3-]", "[PH]", "[PH2]", "[SH]", "[SeH]", "[te]", "[se]", "[s+]", "[o+]",
            "[C@]", "[C@@]", "[S@]", "[S@@]", "[P@]", "[P@@]", "[N@]", "[N@@]", "[N@+]", "[N@@+]",
            "[3H]", "[11C]", "[14C]", "[15N]", "[18F]", "[123I]", "[125I]", "[131I]", "[2H+]"]


def build_vocab():
    vocab = list(SPECIALS)
    for tok in SINGLE + ["Cl", "Br", "Si", "Se"] + BRACKETS + [a for a in ATOMS if len(a) > 4]:
        if tok not in vocab:
            vocab.append(tok)
    # ring-closure labels %10..%99
    vocab.extend(f"%{i}" for i in range(10, 100))
    return vocab


class SmilesTokenizer:
    def __init__(self, vocab, max_len):
        self.vocab = vocab
        self.max_len = max_len
        self.token_to_id = {t: i for i, t in enumerate(vocab)}
        self.pad_id = self.token_to_id["<pad>"]
        self.bos_id = self.token_to_id["<bos>"]
        self.eos_id = self.token_to_id["<eos>"]
        self.unk_id = self.token_to_id["<unk>"]

    def tokenize(self, smiles):
        tokens = []
        i = 0
        while i < len(smiles):
            match = None
            # longest vocabulary entry that starts at position i
            for tok in sorted(self.vocab, key=len, reverse=True):
                if tok in SPECIALS:
                    continue
                if smiles.startswith(tok, i):
                    match = tok
                    break
            if match is None:
                match = smiles[i]
            tokens.append(match)
            i += len(match)
        return tokens

    def encode(self, smiles):
        ids = [self.bos_id] + [self.token_to_id.get(t, self.unk_id) for t in self.tokenize(smiles)]
        ids = ids[: self.max_len - 1] + [self.eos_id]
        mask = [1] * len(ids)
        while len(ids) < self.max_len:
            ids.append(self.pad_id)
            mask.append(0)
        return ids, mask
