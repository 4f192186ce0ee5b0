"""Rating prediction from product reviews with a unigram-LM (sentencepiece-like) piece tokenizer."""
from .collator import DataCollatorWithPadding
from .corpus import make_reviews
from .data import ReviewDataset
from .tokenizer import UnigramTokenizer

__all__ = ["DataCollatorWithPadding", "ReviewDataset", "UnigramTokenizer", "make_reviews"]
