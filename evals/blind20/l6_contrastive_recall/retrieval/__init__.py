from .callbacks import Callback, LossHistory, RetrievalMetrics
from .data import PairedCaptionDataset
from .module import DualEncoder
from .trainer import Trainer

__all__ = ["Callback", "LossHistory", "RetrievalMetrics", "PairedCaptionDataset",
           "DualEncoder", "Trainer"]
