"""The one exception that means "the user's input is unusable" (exit 2).

Raised on purpose at the front door (target folder, contract, config, flags, run
references, a repository another run holds), with a message that names the file or
value and what to do. Every other exception inside a run, a plain ``ValueError``
included (a pydantic ``ValidationError``, a ``JSONDecodeError``, a
``UnicodeDecodeError`` of perfloop's own), is a bug in perfloop: exit 5, traceback
saved in the run folder.

It stays a ``ValueError`` so that callers which already catch ``ValueError`` keep
working; what matters is that the CLI maps only ``BadInput`` to exit 2.
"""
from __future__ import annotations


class BadInput(ValueError):
    """The user's input is unusable; the message says which file or value and how to fix it."""
