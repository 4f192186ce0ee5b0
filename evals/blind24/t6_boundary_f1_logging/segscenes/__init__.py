"""Semantic segmentation of small synthetic scenes, with boundary-F logging."""
