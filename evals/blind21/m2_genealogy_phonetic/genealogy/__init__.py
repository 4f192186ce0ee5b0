from .phonetic import soundex, metaphone, normalize_name, standardize
from .vocab import PhoneticVocab
from .records import HouseholdGenerator, Person, Household
from .tokenization import NameTokenizer
from .collator import PaddingCollator

__all__ = ["soundex", "metaphone", "normalize_name", "standardize", "PhoneticVocab", "HouseholdGenerator", "Person",
           "Household", "NameTokenizer", "PaddingCollator"]
