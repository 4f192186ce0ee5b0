"""The probe: put on the pipeline's PYTHONPATH, not imported by perfloop (except ``perfloop_layout``).

Its modules are top-level names inside the user's interpreter (``perfloop_probe``, ...); this
file only lets perfloop import the shared layout as ``perfloop.tools.measure.probe.perfloop_layout``.
"""
