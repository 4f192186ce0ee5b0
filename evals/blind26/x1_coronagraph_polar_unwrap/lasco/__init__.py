"""Tiny coronagraph toolkit: synthetic LASCO-like frames, polar unwrapping, datasets."""
