"""agent/proposers."""
