from .tokenizer import SmilesTokenizer, build_vocab
from .corpus import make_corpus
