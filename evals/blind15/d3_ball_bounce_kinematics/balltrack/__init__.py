from .simulate import simulate_clip, SHOT_TYPES
from .dataset import TrackStream, TrackSample

__all__ = ["simulate_clip", "SHOT_TYPES", "TrackStream", "TrackSample"]
