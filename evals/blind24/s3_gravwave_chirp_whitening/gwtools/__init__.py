"""Chirp detection in simulated detector strain."""
