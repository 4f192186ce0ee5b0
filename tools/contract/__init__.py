"""tools/contract."""
