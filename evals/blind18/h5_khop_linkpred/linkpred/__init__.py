from .collate import SubgraphCollator
from .data import EdgePairs, make_graph
from .model import DenseGCNLinkPredictor

__all__ = ["SubgraphCollator", "EdgePairs", "make_graph", "DenseGCNLinkPredictor"]
