AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
GAP = "-"
PAD_ID = 0
UNK_ID = 1
# 0 pad, 1 unknown (X, B, Z, lower-case insertions), 2.. amino acids, last the gap
ALPHABET = ["<pad>", "<unk>"] + list(AMINO_ACIDS) + [GAP]
AA_TO_ID = {ch: i for i, ch in enumerate(ALPHABET) if len(ch) == 1}
