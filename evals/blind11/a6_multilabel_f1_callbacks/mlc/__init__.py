from .callbacks import Callback, LossHistory, MultiLabelMetrics
from .data import DocTagDataset, TagCollator
from .trainer import Trainer

__all__ = ["Callback", "DocTagDataset", "LossHistory", "MultiLabelMetrics", "TagCollator", "Trainer"]
