"""Fall detection from wrist-worn accelerometer streams."""
from .dataset import FallWindows, WindowSample
from .recordings import simulate_recordings

__all__ = ["FallWindows", "WindowSample", "simulate_recordings"]
