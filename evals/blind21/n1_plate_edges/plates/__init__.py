from .dataset import PlateCropDataset
from .transforms import build_transforms

__all__ = ["PlateCropDataset", "build_transforms"]
