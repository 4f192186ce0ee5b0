from .corpus import SyntaxTree, TreeCorpus
from .collate import TreeCollator

__all__ = ["SyntaxTree", "TreeCorpus", "TreeCollator"]
