"""Minimal top-down pose estimation kit: synthetic person crops, a heatmap net, COCO-style metrics."""
