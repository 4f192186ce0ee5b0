"""Discrete-time survival modelling on tabular patient records."""
