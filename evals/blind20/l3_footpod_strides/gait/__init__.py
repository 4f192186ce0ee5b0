from .dsp import GaitFeatureExtractor
from .model import GaitNet
from .stream import FootPodStream

__all__ = ["GaitFeatureExtractor", "GaitNet", "FootPodStream"]
