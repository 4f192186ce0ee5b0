"""Toy semantic segmentation: shapes on textured backgrounds, a tiny encoder-decoder, IoU/Dice logging."""
from .data import ShapesSegmentation
from .module import SegmentationModule, MiniTrainer

__all__ = ["ShapesSegmentation", "SegmentationModule", "MiniTrainer"]
