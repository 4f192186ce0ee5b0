from .dataset import FingerprintDataset
from .model import OrientationNet
from .transforms import (BlockOrientationField, Compose, RandomGain, RandomShift,
                         SobelGradients, ToTensor)

__all__ = [
    "FingerprintDataset", "OrientationNet", "Compose", "RandomShift", "RandomGain",
    "SobelGradients", "BlockOrientationField", "ToTensor",
]
