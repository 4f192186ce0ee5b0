"""One node per file; each takes the LoopState and returns a dict of updates."""
