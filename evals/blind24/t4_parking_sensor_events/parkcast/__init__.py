"""Next-hour parking-bay occupancy forecast from raw sensor event feeds (JSON lines)."""
