from .dataset import UnderwaterScenes
from .synth import CLASSES
from . import transforms

__all__ = ["UnderwaterScenes", "CLASSES", "transforms"]
