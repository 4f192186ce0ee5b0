"""Arabic dialect identification from transliterated character n-grams."""
