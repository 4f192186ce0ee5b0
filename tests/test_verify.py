"""The verify cascade: one function per stage, the README's list generated from them."""
from __future__ import annotations

from agent.nodes.verify import STAGES, cascade_markdown
from tests.conftest import ROOT


def test_readme_lists_the_stages_verify_runs():
    readme = (ROOT / "README.md").read_text()
    assert cascade_markdown() in readme, "regenerate README's cascade list from agent.nodes.verify.cascade_markdown()"
    names = [stage.name for stage in STAGES]
    assert len(names) == len(set(names)) and names[0] == "patch" and names[-1] == "speed"
    assert names.index("timing") < names.index("all_runs") < names.index("speed")


def test_an_unchecked_loss_is_said_in_the_reason():
    from agent.nodes.verify import _Cascade, _caveat
    from tools.datacheck import CheckResult

    cascade = _Cascade.__new__(_Cascade)
    cascade.loss = CheckResult(status="not_comparable", detail="no loss was recorded (no backward() on a scalar)")
    assert _caveat(cascade) == " (loss not checked: no loss was recorded (no backward() on a scalar))"
    cascade.loss = CheckResult(status="identical", detail="10 losses bit-identical")
    assert _caveat(cascade) == ""
