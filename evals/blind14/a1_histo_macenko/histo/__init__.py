"""Tiny histopathology tile toolkit: stain normalisation, tile transforms and a tile dataset."""
from .data import TileDataset, make_slides
from .stain import MacenkoNormalizer
from .transforms import ColorJitter, Compose, RandomFlip, RandomRot90, ToTensor

__all__ = ["TileDataset", "make_slides", "MacenkoNormalizer", "Compose", "RandomRot90",
           "RandomFlip", "ColorJitter", "ToTensor"]
