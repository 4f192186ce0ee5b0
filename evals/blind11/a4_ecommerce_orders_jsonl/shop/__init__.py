"""Order export parsing and featurisation for the return-risk model."""
from .dataset import OrderBatch, OrderLinesDataset, collate_orders
from .features import FEATURE_NAMES, OrderFeaturizer
from .synth import generate_order_lines

__all__ = ["FEATURE_NAMES", "OrderBatch", "OrderFeaturizer", "OrderLinesDataset", "collate_orders",
           "generate_order_lines"]
