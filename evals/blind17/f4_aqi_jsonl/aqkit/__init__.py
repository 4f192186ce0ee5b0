"""Air-quality sensor logs (JSON lines) -> hourly AQI sequences."""
from .dataset import AQBatch, StationBatchSampler, StationWindows, collate_windows
from .records import synth_station_log

__all__ = ["AQBatch", "StationBatchSampler", "StationWindows", "collate_windows", "synth_station_log"]
