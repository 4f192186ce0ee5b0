from .synthetic import make_tiles
from .dataset import TileDataset
from . import transforms

__all__ = ["make_tiles", "TileDataset", "transforms"]
