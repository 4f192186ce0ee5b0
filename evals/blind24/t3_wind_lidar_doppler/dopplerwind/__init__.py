"""Doppler lidar spectra -> radial-velocity moments -> wind profile regression."""
