"""ctlung: a small chest-CT slice pipeline (DICOM-like decoding, HU windowing, lung masks)."""
from .data import CTSliceDataset, build_transforms

__all__ = ["CTSliceDataset", "build_transforms"]
