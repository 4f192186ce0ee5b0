from .data import WeatherPhotos
from .model import SkyCueNet
from .transforms import build_transforms

__all__ = ["WeatherPhotos", "SkyCueNet", "build_transforms"]
