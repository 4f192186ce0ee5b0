"""The approval prompt, driven through a pseudo-terminal as a person would: approve, reject, edit, quit.

Without a terminal (stdin closed or piped) the run pauses at the proposal, on start and on resume.
"""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT, git, make_repo, perfloop

PROMPT = b"[a]pprove / [r]eject / [e]dit / [q]uit? "
RUN = ["--json", "--max-iters", "1"]


def in_terminal(args: list[str], answers: list[str], env: dict | None = None,
                timeout: float = 600) -> tuple[int, str, str]:
    """Run the CLI with stdin and stderr on a pseudo-terminal; answer each prompt in turn."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "perfloop.agent.cli", *args], cwd=ROOT, stdin=slave, stderr=slave,
                               stdout=subprocess.PIPE, env=env or dict(os.environ))
    os.close(slave)
    screen, pending, deadline = b"", list(answers), time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            screen += chunk
            waiting_on = screen.rsplit(b"\n", 1)[-1]
            if pending and (waiting_on.endswith(PROMPT) or waiting_on.endswith(b"Enter to skip): ")):
                os.write(master, (pending.pop(0) + "\n").encode())
        elif process.poll() is not None:
            break
    out = process.stdout.read().decode()
    process.wait(timeout=30)
    os.close(master)
    return process.returncode, out, screen.decode(errors="replace")


def _summary(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def _events(summary: dict, name: str) -> list[dict]:
    records = [json.loads(line) for line in Path(summary["audit_log"]).read_text().splitlines()]
    return [r["data"] for r in records if r["event"] == name]


def test_reject_with_a_reason_is_recorded(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    code, out, screen = in_terminal(["run", str(repo), *RUN], ["r", "not during the release freeze"])
    assert code == 0, screen
    summary = _summary(out)
    assert "--- a/configs/train.yaml" in screen and "\x1b[32m+" in screen  # the diff, coloured
    assert "Where: configs/train.yaml:" in screen  # the codemod's edit, as data: file:line and the values
    [item] = summary["iterations"]
    assert item["verdict"] == "declined" and "not during the release freeze" in item["reason"]
    [approval] = _events(summary, "approval")
    assert approval["decision"] == "reject" and approval["reason"] == "not during the release freeze"


def test_prompt_shows_evidence_gain_and_the_tolerances_enforced(tmp_path):
    repo = make_repo(tmp_path / "repo", "compute")  # compute_bound: its remedies let the loss move within tolerance
    code, out, screen = in_terminal(["run", str(repo), *RUN], ["q"])
    assert code == 0, screen
    summary = _summary(out)
    [proposed] = [p["proposal"] for p in _events(summary, "proposal")]
    lines = screen.replace("\r\n", "\n").splitlines()
    [evidence] = [line for line in lines if line.startswith("Evidence: ")]
    for key, value in proposed["evidence"].items():  # the diagnosis's numbers, as measured
        shown = f"{value:.3g}" if isinstance(value, float) else str(value)
        assert f"{key}={shown}" in evidence
    assert f"Expected gain: up to {proposed['expected_speedup']:.2f}x" in lines
    assert proposed["loss_rule"] == "within_tolerance" and proposed["data_rule"] == "identical"
    policy = "\n".join(lines[lines.index("Verification:"):])
    assert "batch data: bit-identical to the baseline's" in policy
    assert "loss: within rtol 0.0001 atol 1e-06 of the baseline's at every step (the default loss tolerance)" in policy
    assert "stdout lines, stderr lines and files written compared with the baseline's" in policy
    assert "printed numbers within rtol 0.0001" in policy and "interleaved A/B runs must beat the noise floor" in policy


def test_policy_names_a_data_tolerance_and_where_it_comes_from():
    from types import SimpleNamespace

    from perfloop.agent.rule import rule_of
    from perfloop.agent.state import Proposal

    def proposal(**extra) -> Proposal:
        return Proposal(id="p1", diagnosis="transform_hotspot", remedy="vectorize_hot_function", source="llm",
                        change="vectorise", patch="", touched=[], expected_speedup=2.0, base_head="x",
                        data_rule="within_tolerance", loss_rule="within_tolerance", **extra)

    # A proposal checkpointed without its rule: it is derived again from the knowledge base's entry.
    state = SimpleNamespace(diagnoses=[])
    data = rule_of(state, proposal()).policy.data
    assert (data.atol, data.rtol, data.source) == (1e-5, 1e-5, "the float32 row of the dtype table")
    declared = rule_of(state, proposal(atol=1e-3, rtol=1e-4)).policy.data
    assert (declared.atol, declared.rtol, declared.source) == (1e-3, 1e-4, "declared by the change")


def test_the_prompt_shows_the_rule_the_proposal_carries():
    from types import SimpleNamespace

    from perfloop.agent.nodes.approve import approval_request
    from perfloop.agent.rule import decide_rule
    from perfloop.agent.state import Proposal
    from perfloop.knowledge_base import Verification

    proposal = Proposal(id="p1", diagnosis="no_such_entry", remedy="no_such_remedy", source="codemod",
                        change="c", patch="", touched=[], expected_speedup=2.0, base_head="x")
    carried = decide_rule(Verification(data="within_tolerance", loss="within_tolerance", atol=1e-3, rtol=1e-2),
                          proposal)
    state = SimpleNamespace(diagnoses=[], proposal=proposal.model_copy(update={"rule": carried}),
                            profile=SimpleNamespace(noise_pct=2.0), target=SimpleNamespace(ab_runs=3, min_gain_pct=5.0))
    request = approval_request(state)  # no knowledge-base lookup: the entry does not exist
    assert request.policy == carried.policy and (request.policy.data.atol, request.policy.data.rtol) == (1e-3, 1e-2)
    assert "batch data: within atol 0.001 rtol 0.01 of the baseline's (the remedy's)" in request.verification


def test_the_proposers_notes_reach_the_prompt():
    import io
    from types import SimpleNamespace

    from perfloop.agent.nodes.approve import approval_request
    from perfloop.agent.state import Proposal
    from perfloop.agent.ui.approval import show_request

    note = "not vectorised: the loop at line 14 appends to two lists"
    proposal = Proposal(id="p1", diagnosis="transform_hotspot", remedy="vectorize_loops", source="codemod",
                        change="vectorise frame_energy", patch="--- a/train.py\n+++ b/train.py\n", touched=[],
                        expected_speedup=2.0, base_head="x", notes=[note])
    state = SimpleNamespace(diagnoses=[], proposal=proposal, profile=SimpleNamespace(noise_pct=2.0),
                            target=SimpleNamespace(ab_runs=3, min_gain_pct=5.0))
    request = approval_request(state)
    assert request.notes == [note]
    screen = io.StringIO()
    show_request(request, err=screen)
    assert f"Note: {note}" in screen.getvalue().splitlines()


def test_no_color_leaves_the_diff_plain_on_a_terminal(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    code, out, screen = in_terminal(["run", str(repo), *RUN], ["q"], env={**os.environ, "NO_COLOR": "1"})
    assert code == 0, screen
    assert _summary(out)["stop_reason"] == "user_quit"
    assert "--- a/configs/train.yaml" in screen and "\n+  num_workers: " in screen.replace("\r\n", "\n")
    assert not re.search(r"\x1b\[3\dm", screen), screen  # no colour at all (bold may stay, as NO_COLOR allows)


def test_quit_stops_with_typed_reason(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    code, out, screen = in_terminal(["run", str(repo), *RUN], ["q"])
    assert code == 0, screen
    assert _summary(out)["stop_reason"] == "user_quit"


def test_edit_verifies_the_edited_patch_and_keeps_both(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    # A scripted editor: the user settles on one worker whatever perfloop proposed.
    editor = f"{sys.executable} -c \"import re,sys; p=sys.argv[1]; t=open(p).read(); " \
             f"open(p,'w').write(re.sub(r'(?m)^[+]( *num_workers: )\\d+', r'+\\g<1>1', t))\""
    code, out, screen = in_terminal(["run", str(repo), *RUN], ["e"], env={**os.environ, "EDITOR": editor})
    assert code == 0, screen
    summary = _summary(out)
    [edited] = _events(summary, "proposal_edited")
    assert "num_workers: 1" in edited["edited_patch"] and "num_workers: 1" not in edited["original_patch"]
    [item] = summary["iterations"]
    assert item["verdict"] in ("accepted", "rejected") and "edited" in item["change"]
    if item["verdict"] == "accepted":
        assert "+  num_workers: 1" in git(repo, "diff", "main", summary["branch"])


def test_approve_runs_verification(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    code, out, screen = in_terminal(["run", str(repo), *RUN], ["a"])
    assert code == 0, screen
    summary = _summary(out)
    assert summary["iterations"][0]["verdict"] in ("accepted", "rejected")
    assert _events(summary, "approval")[0]["by"] == "user"


def test_no_terminal_pauses_on_start_and_on_resume(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    piped = perfloop("run", str(repo), *RUN, stdin="a\n")  # a pipe is not a person: pause, never approve
    assert piped.returncode == 0, piped.stderr
    waiting = _summary(piped.stdout)
    assert waiting["stop_reason"] == "awaiting_approval" and "num_workers" in waiting["pending"]["diff"]
    again = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "resume", waiting["run_id"], "--json"], cwd=ROOT,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert _summary(again.stdout)["stop_reason"] == "awaiting_approval"
    code, out, screen = in_terminal(["resume", waiting["run_id"], "--json"], ["r", ""])
    assert code == 0, screen
    assert _summary(out)["iterations"][0]["verdict"] == "declined"


def stdin_closed(args: list[str]) -> subprocess.CompletedProcess:
    """Run the CLI with file descriptor 0 closed outright (Python then sets sys.stdin to None)."""
    return subprocess.run(["bash", "-c", 'exec "$@" 0<&-', "bash", sys.executable, "-m", "perfloop.agent.cli", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_closed_stdin_pauses_on_start_and_on_resume(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    started = stdin_closed(["run", str(repo), *RUN])
    assert started.returncode == 0, started.stderr
    assert "Traceback" not in started.stderr and "internal error" not in started.stderr
    waiting = _summary(started.stdout)
    assert waiting["stop_reason"] == "awaiting_approval" and "num_workers" in waiting["pending"]["diff"]
    assert f"paused at proposal {waiting['pending']['proposal_id']}" in started.stderr
    resumed = stdin_closed(["resume", waiting["run_id"], "--json"])
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr and "internal error" not in resumed.stderr
    again = _summary(resumed.stdout)
    assert again["stop_reason"] == "awaiting_approval" and again["pending"] == waiting["pending"]
    assert not _events(again, "approval")  # nobody answered, so nothing was decided


def test_base_moved_during_a_paused_run_is_reported(tmp_path):
    repo = make_repo(tmp_path / "repo", "waiting")
    paused = perfloop("run", str(repo), *RUN)
    waiting = _summary(paused.stdout)
    assert waiting["stop_reason"] == "awaiting_approval"
    (repo / "NOTES.md").write_text("the user keeps working\n")
    git(repo, "add", "NOTES.md")
    git(repo, "commit", "-qm", "user commit during the run")
    moved_to = git(repo, "rev-parse", "HEAD").strip()
    resumed = perfloop("resume", waiting["run_id"], "--auto-approve", "--json")
    assert resumed.returncode == 0, resumed.stderr
    summary = _summary(resumed.stdout)
    assert summary["base_moved"] is True and summary["base_now"] == moved_to
    assert "your HEAD moved during the run" in resumed.stderr
    # The run's branch grew from the old base, untouched by the user's commit.
    assert git(repo, "merge-base", summary["branch"], moved_to).strip() == summary["base"]
