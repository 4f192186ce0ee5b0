"""Tiny CCD reduction + source classification toolkit."""
from .calib import MasterFrames
from .data import ExposureDataset, collate_cutouts
from .transforms import (AsinhStretch, Calibrate, Compose, CosmicRayReject, RandomFlip,
                         SourceCutout, ToTensor)

__all__ = ["MasterFrames", "ExposureDataset", "collate_cutouts", "AsinhStretch", "Calibrate", "Compose",
           "CosmicRayReject", "RandomFlip", "SourceCutout", "ToTensor"]
