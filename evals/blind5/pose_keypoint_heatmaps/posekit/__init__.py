"""Tiny top-down pose estimation kit: synthetic stick figures, heatmap targets, a small net."""
