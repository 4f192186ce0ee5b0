"""Where verification runs: the bounds of ``remedies_at_once``, declared once.

``Target.remedies_at_once`` (``[tool.perfloop]``), ``Settings.remedies_at_once`` and the CLI's
``--remedies-at-once`` take 1 to ``REMEDIES_AT_ONCE_MAX``; where blocks run side by side
unattended (``--executor ray --auto-approve``) and neither the flag nor the contract sets it,
the CLI uses ``REMEDIES_AT_ONCE_ON_CLUSTER`` (elsewhere 1).
"""
REMEDIES_AT_ONCE_MAX = 8
REMEDIES_AT_ONCE_ON_CLUSTER = 3

__all__ = ["REMEDIES_AT_ONCE_MAX", "REMEDIES_AT_ONCE_ON_CLUSTER"]
