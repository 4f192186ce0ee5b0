"""Hyperspectral patch classification helpers (scene synthesis, spectral transforms, datasets)."""
from .scene import synthesize_scene, reference_library
from .transforms import (Compose, ToReflectance, DropBands, ContinuumRemoval, SpectralAngles,
                         RandomDihedral, SpectralJitter, ToTensor)
from .data import PatchDataset

__all__ = ["synthesize_scene", "reference_library", "Compose", "ToReflectance", "DropBands",
           "ContinuumRemoval", "SpectralAngles", "RandomDihedral", "SpectralJitter", "ToTensor",
           "PatchDataset"]
