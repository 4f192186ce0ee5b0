from .collate import PocketGraphCollator
from .complexes import SyntheticComplexes, ELEMENTS
from .model import PocketGNN
