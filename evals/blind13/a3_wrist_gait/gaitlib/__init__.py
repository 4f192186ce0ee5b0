"""Gait analysis from wrist accelerometry: packet decoding, step detection, stride features."""
from .data import GaitWindows, ClassBalancedBatchSampler, GaitBatch, collate_gait
from .device import simulate_cohort
from .trainer import Trainer, LoggingCallback

__all__ = ["GaitWindows", "ClassBalancedBatchSampler", "GaitBatch", "collate_gait", "simulate_cohort",
           "Trainer", "LoggingCallback"]
