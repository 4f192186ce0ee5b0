"""Word-piece CTC recogniser on synthetic filterbank utterances."""
from .data import BucketBatchSampler, SpeechCollator, SyntheticSpeech, build_corpus
from .model import ConvCTC
from .text import BLANK, PieceTokenizer
from .trainer import Trainer

__all__ = ["BLANK", "BucketBatchSampler", "PieceTokenizer", "ConvCTC", "SpeechCollator", "SyntheticSpeech",
           "Trainer", "build_corpus"]
