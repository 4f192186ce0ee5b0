"""Dendrochronology toolkit: synthetic increment cores, ring-width profiles, a small classifier."""
