"""A tiny extractive-QA stack: WordPiece tokenizer with offsets, windowing collator, span model."""
from .corpus import build_vocab, make_articles
from .tokenization import WordPieceTokenizer
from .collator import DataCollatorForSpanQA
from .data import QADataset
from .model import SpanExtractor

__all__ = ["build_vocab", "make_articles", "WordPieceTokenizer", "DataCollatorForSpanQA", "QADataset",
           "SpanExtractor"]
