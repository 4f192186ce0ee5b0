"""Road-network subgraph regression (congestion per intersection)."""
from .collate import GraphCollator
from .model import DenseGCN
from .network import RoadNetwork
from .sampling import EgoSubgraphs

__all__ = ["GraphCollator", "DenseGCN", "RoadNetwork", "EgoSubgraphs"]
