"""Tiny CCD reduction + cutout toolkit used by the source classifier."""
from .frames import simulate_night
from .calib import MasterFrames
from .transforms import Compose, Calibrate, RejectCosmicRays, RandomFlip, AsinhStretch, ToTensor
from .data import CutoutDataset

__all__ = ["simulate_night", "MasterFrames", "Compose", "Calibrate", "RejectCosmicRays",
           "RandomFlip", "AsinhStretch", "ToTensor", "CutoutDataset"]
