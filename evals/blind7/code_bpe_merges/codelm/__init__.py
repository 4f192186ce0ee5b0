from .bpe import CodeBPE, learn_merges
from .corpus import build_corpus
from .data import CodeWindowDataset

__all__ = ["CodeBPE", "learn_merges", "build_corpus", "CodeWindowDataset"]
