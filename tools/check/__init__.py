"""tools/check."""
