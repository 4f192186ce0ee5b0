from .normalize import normalize_address
from .tokenizer import HashedNgramTokenizer
from .synth import AddressGenerator

__all__ = ["normalize_address", "HashedNgramTokenizer", "AddressGenerator"]
