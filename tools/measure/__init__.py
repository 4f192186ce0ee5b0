"""tools/measure."""
