"""Isolated sign (gloss) recognition from 2-D pose keypoints."""
