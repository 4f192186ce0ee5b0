"""OCT B-scan loading and retina flattening transforms."""
from .data import BScanDataset, collate_bscans
from .transforms import (Compose, DetectLayer, FlattenToLayer, RandomCrop,
                         RandomSpeckle, ToFloat, ToTensor)

__all__ = ["BScanDataset", "collate_bscans", "Compose", "DetectLayer", "FlattenToLayer",
           "RandomCrop", "RandomSpeckle", "ToFloat", "ToTensor"]
