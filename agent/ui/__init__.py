"""agent/ui."""
