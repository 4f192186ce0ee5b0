"""Game-result classification from PGN move text."""
