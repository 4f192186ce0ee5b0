"""Wave-buoy heave records and the zero up-crossing analysis used to summarise them."""
from .records import HeaveRecord, synthesize_fleet
from .waves import Wave, wave_statistics, zero_upcrossing_waves
from .stream import HeaveWindowStream

__all__ = ["HeaveRecord", "synthesize_fleet", "Wave", "wave_statistics", "zero_upcrossing_waves",
           "HeaveWindowStream"]
