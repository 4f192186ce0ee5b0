from .bleu import corpus_bleu
from .cider import CiderD
from .ngrams import ngram_counts

__all__ = ["corpus_bleu", "CiderD", "ngram_counts"]
