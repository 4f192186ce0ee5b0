"""Tiny document-image preprocessing toolkit (binarisation, deskew, synthetic scans)."""
from .binarize import SauvolaBinarize
from .deskew import ProjectionDeskew
from .synth import ScannedPages
from .transforms import Compose, DecodePGM, RandomCrop, Downsample, ToTensor

__all__ = ["SauvolaBinarize", "ProjectionDeskew", "ScannedPages", "Compose", "DecodePGM",
           "RandomCrop", "Downsample", "ToTensor"]
