"""Small dermoscopy toolkit: synthetic lesion archive, transforms, dataset."""
from .data import LesionArchive, LesionDataset
from .transforms import (BorderIrregularity, Compose, HairRemoval, RandomCrop, RandomFlip,
                         ShadesOfGrey, ToTensor)

__all__ = ["LesionArchive", "LesionDataset", "Compose", "RandomCrop", "RandomFlip", "HairRemoval",
           "ShadesOfGrey", "BorderIrregularity", "ToTensor"]
