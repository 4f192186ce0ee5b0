"""Eco-driving score regression from raw OBD-II trip logs."""
