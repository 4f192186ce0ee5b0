from .collator import CharVocab, DataCollatorCTCWithPadding
from .corpus import SyntheticSpeechCorpus
from .text import TranscriptNormalizer

__all__ = ["CharVocab", "DataCollatorCTCWithPadding", "SyntheticSpeechCorpus", "TranscriptNormalizer"]
