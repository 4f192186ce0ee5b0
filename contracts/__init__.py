"""perfloop's contracts, declared once, in the one package every layer may import.

- ``stages``: the step-time ledger's stages (the probe's own ``Stage`` enum) and the two sums
  the knowledge base adds (input, compute);
- ``layout``: the probe's environment variables, file names and defaults (re-exported from the
  probe's stdlib-only ``perfloop_layout``, which the probe reads inside the user's interpreter);
- ``tolerances``: the data tolerance per dtype and the default loss tolerance;
- ``metrics``: ``ProfileMetrics``, one typed field per metric the knowledge base may match on,
  with its description and unit (the knowledge base's allowed names and README's table come from it);
- ``code``: ``FunctionRef``, a function named by qualified name, file and line;
- ``interference``: the modes of ``interference`` (rerun, report) and their environment default;
- ``executors``: the bounds of ``remedies_at_once`` (its most, and its default on a cluster).

This package imports nothing else of perfloop but the probe's layout file.
"""
