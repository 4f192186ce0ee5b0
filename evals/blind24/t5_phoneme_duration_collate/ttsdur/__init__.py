"""Frame-level acoustic model training with phoneme durations (FastSpeech-style inputs)."""
