"""Tiny seismic-trace toolkit: synthetic waveforms, obspy-like transforms, a dataset."""
from .data import SyntheticEventDataset, collate_traces
from .transforms import AGC, Compose, RandomPolarityFlip, RandomTimeShift, STALTA, ToTensor

__all__ = ["SyntheticEventDataset", "collate_traces", "AGC", "Compose", "RandomPolarityFlip",
           "RandomTimeShift", "STALTA", "ToTensor"]
