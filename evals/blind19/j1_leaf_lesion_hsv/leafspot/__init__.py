from .data import LeafLesionDataset
from .model import LesionNet
from .transforms import build_transforms

__all__ = ["LeafLesionDataset", "LesionNet", "build_transforms"]
