from .simulate import FrameSimulator
from .transforms import Compose, CalibrateFrame, DetectStars, AperturePhotometry, CatalogToTensor
from .dataset import StarFieldDataset

__all__ = [
    "FrameSimulator", "Compose", "CalibrateFrame", "DetectStars", "AperturePhotometry",
    "CatalogToTensor", "StarFieldDataset",
]
