"""Model-side codemods on real compute-bound pipelines: torch.compile (switch and wrap), optimizer flags,
zero_grad, intra-op threads."""
from __future__ import annotations

import math
import textwrap

import pytest

from perfloop.tools.change.codemods import CodemodContext, DataLoaderSite, NotApplicable, ProfileFacts, apply_codemod
from perfloop.tools.measure.profiler import ProbeSettings, run_probed
from tests.conftest import git, make_repo

SHORT = ProbeSettings(steps=3, warmup_steps=1)


def apply(repo, result):
    for path, text in result.files.items():
        (repo / path).write_text(text)
    git(repo, "commit", "-qam", result.summary)


def close(a, b, rtol=1e-4):
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=rtol, abs_tol=1e-6) for x, y in zip(a, b))


def test_compile_flips_the_yaml_switch_and_the_pipeline_runs_compiled(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_switch")
    command = "python train.py --config configs/train.yaml"
    before = run_probed(command, repo, tmp_path / "before", SHORT)
    result = apply_codemod("enable_torch_compile", CodemodContext(root=repo, config_path="configs/train.yaml"))
    # The comment on the edited line went with the old value (a value edit's rule); the notes say so.
    assert result.files == {"configs/train.yaml": (repo / "configs/train.yaml").read_text().replace(
        "compile: false           # the switch perfloop should find", "compile: true")}
    assert any("dropped the comment '# the switch perfloop should find'" in note for note in result.notes)
    assert result.location == "configs/train.yaml:4" and result.one_off_cost_s > 0
    apply(repo, result)
    after = run_probed(command, repo, tmp_path / "after", SHORT)
    assert "model type OptimizedModule" in after.result.stderr_tail
    assert "model type Sequential" in before.result.stderr_tail
    assert after.measurement.data_digest == before.measurement.data_digest
    assert close(after.measurement.losses, before.measurement.losses)
    with pytest.raises(NotApplicable, match="already true"):
        apply_codemod("enable_torch_compile", CodemodContext(root=repo, config_path="configs/train.yaml"))


def test_compile_flips_a_python_config_switch(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    (repo / "config.py").write_text((repo / "config.py").read_text() + "compile = False\n")
    train = (repo / "train.py").read_text().replace(
        "    net = build_model(config.width)\n",
        "    net = build_model(config.width)\n    if config.compile:\n        net = torch.compile(net)\n")
    (repo / "train.py").write_text(train)
    git(repo, "commit", "-qam", "a compile switch")
    result = apply_codemod("enable_torch_compile", CodemodContext(root=repo))
    assert result.files == {"config.py": (repo / "config.py").read_text().replace("compile = False",
                                                                                   "compile = True")}
    assert result.summary == "torch.compile on: compile = False → True in config.py"


def test_compile_wraps_the_model_the_optimizer_uses_and_it_runs_under_inductor(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    before = run_probed("python train.py", repo, tmp_path / "before", SHORT)
    result = apply_codemod("enable_torch_compile", CodemodContext(root=repo))
    old = (repo / "train.py").read_text()
    assert result.files["train.py"] == old.replace(
        "    net = build_model(config.width)\n",
        "    net = build_model(config.width)\n    net = torch.compile(net)\n")
    assert result.one_off_cost_s == 60.0 and result.knob == "torch.compile"
    apply(repo, result)
    after = run_probed("python train.py", repo, tmp_path / "after", SHORT)  # default backend: inductor
    assert "model type OptimizedModule" in after.result.stderr_tail
    assert after.measurement.data_digest == before.measurement.data_digest
    assert close(after.measurement.losses, before.measurement.losses)
    with pytest.raises(NotApplicable, match="already passed to torch.compile"):
        apply_codemod("enable_torch_compile", CodemodContext(root=repo))


def test_compile_backend_and_mode_are_passed_through(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    result = apply_codemod("enable_torch_compile", CodemodContext(
        root=repo, params={"backend": "aot_eager", "mode": "reduce-overhead"}))
    assert "    net = torch.compile(net, backend='aot_eager', mode='reduce-overhead')\n" in result.files["train.py"]


def test_fused_optimizer_flag_runs_and_keeps_the_loss_close(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    before = run_probed("python train.py", repo, tmp_path / "before", SHORT)
    result = apply_codemod("set_optimizer_flag", CodemodContext(root=repo, params={"flag": "fused"}))
    assert result.files["train.py"] == (repo / "train.py").read_text().replace(
        "AdamW(net.parameters(), lr=config.lr)", "AdamW(net.parameters(), lr=config.lr, fused=True)")
    apply(repo, result)
    after = run_probed("python train.py", repo, tmp_path / "after", SHORT)
    assert close(after.measurement.losses, before.measurement.losses)
    with pytest.raises(NotApplicable, match="already passes fused=True"):
        apply_codemod("set_optimizer_flag", CodemodContext(root=repo, params={"flag": "fused"}))
    with pytest.raises(NotApplicable, match="exclude each other"):
        apply_codemod("set_optimizer_flag", CodemodContext(root=repo, params={"flag": "foreach"}))
    with pytest.raises(ValueError, match="fused"):
        apply_codemod("set_optimizer_flag", CodemodContext(root=repo, params={"flag": "faster"}))


def test_zero_grad_set_to_none(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    with pytest.raises(NotApplicable, match="already sets gradients to None"):
        apply_codemod("set_zero_grad_to_none", CodemodContext(root=repo))
    train = (repo / "train.py").read_text().replace("opt.zero_grad()", "opt.zero_grad(set_to_none=False)")
    (repo / "train.py").write_text(train)
    result = apply_codemod("set_zero_grad_to_none", CodemodContext(root=repo))
    assert result.files["train.py"] == train.replace("set_to_none=False", "set_to_none=True")


def test_intra_op_threads_against_worker_oversubscription(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    facts = ProfileFacts(num_workers=2, cpu_count=4)
    train = (repo / "train.py").read_text()
    (repo / "train.py").write_text(train.replace("torch.set_num_threads(1)", "torch.set_num_threads(4)"))
    result = apply_codemod("set_intra_op_threads", CodemodContext(root=repo, profile=facts))
    assert result.files["train.py"] == train.replace("torch.set_num_threads(1)", "torch.set_num_threads(2)")
    with pytest.raises(NotApplicable, match="no DataLoader workers"):
        apply_codemod("set_intra_op_threads", CodemodContext(root=repo, profile=ProfileFacts(num_workers=0, cpu_count=4)))

    # No call yet: one goes right before the statement building the DataLoader.
    plain = train.replace("    torch.set_num_threads(1)\n", "")
    (repo / "train.py").write_text(plain)
    line = next(i for i, l in enumerate(plain.splitlines(), 1) if "DataLoader(" in l)
    ctx = CodemodContext(root=repo, profile=ProfileFacts(num_workers=2, cpu_count=2),
                         sites=[DataLoaderSite(file="train.py", line=line)])
    result = apply_codemod("set_intra_op_threads", ctx)
    lines = result.files["train.py"].splitlines()
    assert lines[line - 1] == "    torch.set_num_threads(1)  # 2 DataLoader workers share 2 cores"
    assert "DataLoader(" in lines[line]
    assert textwrap.dedent("\n".join(lines[:line - 1])) == textwrap.dedent("\n".join(plain.splitlines()[:line - 1]))


def test_fused_flag_on_a_call_spread_over_lines(tmp_path):
    repo = make_repo(tmp_path / "repo", "compile_wrap")
    train = (repo / "train.py").read_text().replace(
        "opt = torch.optim.AdamW(net.parameters(), lr=config.lr)",
        "opt = torch.optim.AdamW(net.parameters(),\n                            lr=config.lr)")
    (repo / "train.py").write_text(train)
    result = apply_codemod("set_optimizer_flag", CodemodContext(root=repo, params={"flag": "fused"}))
    assert result.files["train.py"] == train.replace(
        "                            lr=config.lr)", "                            lr=config.lr,\n                            fused=True)")
    line = next(i for i, l in enumerate(train.splitlines(), 1) if "opt = torch.optim.AdamW(" in l)
    assert result.location == f"train.py:{line}"
