from .synth import RoadFrameSynth
from .transforms import Compose, Threshold, SlidingWindowLaneFit, Downsample, ToTensor
from .dataset import BirdsEyeLaneDataset

__all__ = ["RoadFrameSynth", "Compose", "Threshold", "SlidingWindowLaneFit", "Downsample",
           "ToTensor", "BirdsEyeLaneDataset"]
