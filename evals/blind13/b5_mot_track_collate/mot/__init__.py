"""Multi-object-tracking clips: MOTChallenge gt parsing, clip dataset, padded track collate, motion model."""
from .data import MOTClipDataset, synthesize_gt, parse_gt
from .collate import TrackBatch, MOTTrackCollator
from .model import MotionModule

__all__ = ["MOTClipDataset", "synthesize_gt", "parse_gt", "TrackBatch", "MOTTrackCollator", "MotionModule"]
