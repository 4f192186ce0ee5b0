from .abbreviations import SIG_ABBREVIATIONS
from .corpus import SigCorpus, make_drug_names
from .tokenizer import SigTokenizer, build_vocab

__all__ = ["SIG_ABBREVIATIONS", "SigCorpus", "SigTokenizer", "build_vocab", "make_drug_names"]
