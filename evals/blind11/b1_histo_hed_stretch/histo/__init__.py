"""Small H&E tile toolkit: synthetic tiles, stain transforms and the tile dataset."""
from .data import TileDataset
from .transforms import ColorDeconvolution, Compose, PercentileStretch, RandomFlipRotate, ToTensor

__all__ = ["TileDataset", "Compose", "RandomFlipRotate", "ColorDeconvolution", "PercentileStretch", "ToTensor"]
