from .alphabet import ALPHABET, AA_TO_ID, GAP, PAD_ID, UNK_ID
from .dataset import SyntheticMSADataset
from .collate import MSACollator

__all__ = ["ALPHABET", "AA_TO_ID", "GAP", "PAD_ID", "UNK_ID", "SyntheticMSADataset", "MSACollator"]
