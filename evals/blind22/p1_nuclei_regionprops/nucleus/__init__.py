from .dataset import NucleiTiles, build_transforms
from .model import CountNet

__all__ = ["NucleiTiles", "build_transforms", "CountNet"]
