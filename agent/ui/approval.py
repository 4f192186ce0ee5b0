"""The approval prompt: show a proposal with its evidence and diff, read approve / reject / edit / quit.

Runs only on a terminal: with stdin closed or not a TTY the run pauses at the
proposal instead (`perfloop resume RUN` asks again), so a script can never approve
by accident. Edit opens ``$EDITOR`` (else ``$VISUAL``, else ``vi``) on the patch; the
edited patch goes back to the graph, which re-scopes and re-checks it in verify.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from perfloop.agent.state import ApprovalAnswer, ApprovalRequest

_STYLES = {"+": "green", "-": "red", "@": "cyan"}
RULE = "-" * 72


def print_diff(diff: str, err) -> None:
    """Print a unified diff between rules on ``err``: additions green, removals red, hunks cyan.

    rich decides whether to colour: only on a terminal, never with ``NO_COLOR`` set or ``TERM=dumb``
    (``FORCE_COLOR`` forces it).
    """
    from rich.console import Console
    from rich.text import Text

    console = Console(file=err, highlight=False, markup=False, emoji=False, soft_wrap=True)
    print(RULE, file=err, flush=True)
    if console.is_terminal:
        text = Text()
        for line in diff.rstrip().splitlines():
            style = "bold" if line.startswith("diff ") else None if line.startswith(("+++", "---")) else \
                _STYLES.get(line[:1])
            text.append(line + "\n", style=style)
        console.print(text, end="")
    else:  # a pipe or a file gets the patch as it is (rich would expand its tabs)
        print(diff.rstrip(), file=err)
    print(RULE, file=err, flush=True)


def _fmt(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def show_request(request: ApprovalRequest, err=None) -> None:
    """Print what the user needs to decide on ``err`` (stderr by default)."""
    err = err or sys.stderr
    print("\n" + "=" * 72, file=err)
    print(f"Proposal {request.proposal_id} ({request.source}): {request.change}", file=err)
    print(f"Why: {request.diagnosis}: {request.why}", file=err)
    if request.where:
        print(f"Where: {request.where}", file=err)
    print(f"Expected gain: up to {request.expected_speedup:.2f}x", file=err)
    print("Evidence: " + ", ".join(f"{k}={_fmt(v)}" for k, v in request.evidence.items()), file=err)
    policy = request.verification
    if isinstance(policy, str):  # a request paused by an older perfloop
        print(f"Verification: {policy}", file=err)
    else:
        print("Verification:", file=err)
        for line in policy:
            print(f"  {line}", file=err)
    for caveat in request.caveats:
        print(f"Caveat: {caveat}", file=err)
    for note in request.notes:
        print(f"Note: {note}", file=err)
    print_diff(request.diff, err)


def edit_patch(patch: str) -> str:
    """Open the user's editor on ``patch`` and return what they saved."""
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
    with tempfile.TemporaryDirectory(prefix="perfloop-edit-") as folder:
        path = Path(folder) / "proposal.patch"
        path.write_text(patch, encoding="utf-8")
        done = subprocess.run(f"{editor} {shlex.quote(str(path))}", shell=True)
        if done.returncode != 0:
            raise OSError(f"the editor `{editor}` exited with {done.returncode}")
        return path.read_text(encoding="utf-8")


def ask_user(request: ApprovalRequest, stream_in=None, err=None) -> ApprovalAnswer | None:
    """Show the proposal and return the answer, or None when no one can answer (closed or non-TTY stdin).

    With file descriptor 0 closed at start-up Python sets ``sys.stdin`` to None: no one can answer either.
    """
    stream_in = stream_in or sys.stdin
    err = err or sys.stderr
    if stream_in is None or stream_in.closed or not stream_in.isatty():
        return None
    show_request(request, err)
    while True:
        print("[a]pprove / [r]eject / [e]dit / [q]uit? ", end="", file=err, flush=True)
        line = stream_in.readline()
        if not line:
            return None
        choice = line.strip().lower()[:1]
        if choice == "a":
            return ApprovalAnswer(decision="approve")
        if choice == "q":
            return ApprovalAnswer(decision="quit")
        if choice == "r":
            print("reason (optional, Enter to skip): ", end="", file=err, flush=True)
            return ApprovalAnswer(decision="reject", reason=stream_in.readline().strip())
        if choice == "e":
            try:
                edited = edit_patch(request.diff)
            except OSError as error:
                print(f"could not edit: {error}", file=err)
                continue
            if not edited.strip():
                print("the edited patch is empty; nothing to verify", file=err)
                continue
            if edited == request.diff:
                print("no change made; approve, reject or edit again", file=err)
                continue
            print_diff(edited, err)
            return ApprovalAnswer(decision="approve", edited_patch=edited)
