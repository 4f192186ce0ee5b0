from .data import BPRTripletDataset, make_interactions
from .metrics import BeyondAccuracyTracker
from .model import MatrixFactorization

__all__ = ["BPRTripletDataset", "make_interactions", "BeyondAccuracyTracker", "MatrixFactorization"]
