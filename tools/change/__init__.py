"""tools/change."""
