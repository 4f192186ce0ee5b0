"""The GPU codemods (TF32, autocast, pinned non-blocking copies, deferred host syncs) and the precision rule.

Every edit is checked as text on code written the usual ways (a plain loop, a trainer class,
Lightning, Hugging Face), and the edits that must keep the numbers are run on the CPU against the
original: the printed sums are the same to the digit. bf16 autocast exists on the CPU, so the
precision rule is exercised on a real loss curve through the real optimize and verify nodes.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfloop.tools.change.codemods import CodemodContext, DataLoaderSite, NotApplicable, ProfileFacts, apply_codemod
from perfloop.tools.check.datacheck import compare_losses
from tests.conftest import make_repo

GPU_CODEMODS = ("allow_tf32", "autocast_forward", "pinned_non_blocking_copies", "defer_host_syncs")

LOOP = '''\
import torch
from torch.utils.data import DataLoader


def main():
    """Train."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(make_data(), batch_size=64, shuffle=True)
    model = make_model().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        total = 0.0
        seen = 0
        losses = []
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            # forward
            logits = model(xb)
            loss = torch.nn.functional.cross_entropy(logits, yb)
            loss.backward()
            opt.step()
            total += loss.item() * xb.size(0)
            seen += (logits.argmax(1) == yb).sum().item()
            losses.append(loss.item())
        print(epoch, total, seen, losses[-1])


if __name__ == "__main__":
    main()
'''


def _repo(tmp_path: Path, text: str, name: str = "train.py", **more: str) -> Path:
    (tmp_path / name).write_text(textwrap.dedent(text))
    for other, body in more.items():
        (tmp_path / other).write_text(textwrap.dedent(body))
    return tmp_path


def _dir(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return folder


def _apply(root: Path, codemod: str, capability: float | None = None, sites=None, **params):
    ctx = CodemodContext(root=root, sites=sites or [], params=params,
                         profile=ProfileFacts(cuda_capability=capability))
    return apply_codemod(codemod, ctx)


def _changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    import difflib

    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0))
    return ([l[1:] for l in diff if l.startswith("-") and not l.startswith("---")],
            [l[1:] for l in diff if l.startswith("+") and not l.startswith("+++")])


# TF32 -----------------------------------------------------------------------------------------
def test_tf32_goes_first_in_the_function_the_main_guard_calls(tmp_path):
    root = _repo(tmp_path, LOOP)
    result = _apply(root, "allow_tf32", capability=8.0)
    text = result.files["train.py"]
    assert text.startswith('import torch\nfrom torch.utils.data import DataLoader\n\n\ndef main():\n    """Train."""\n'
                           '    torch.set_float32_matmul_precision("high")  # TF32 tensor cores for float32 matmuls\n'
                           '    torch.backends.cudnn.allow_tf32 = True  # and for convolutions\n'
                           '    device = torch.device(')
    assert result.location == "train.py:7" and "main()" in result.summary
    assert _changed_lines(LOOP, text)[0] == []  # only additions


def test_tf32_is_refused_where_it_is_already_on_or_the_gpu_has_no_tf32(tmp_path):
    root = _repo(tmp_path, LOOP.replace('    """Train."""\n', '    """Train."""\n    torch.backends.cuda.matmul.'
                                                                 'allow_tf32 = True\n'))
    with pytest.raises(NotApplicable, match=r"train.py:7 already allows TF32"):
        _apply(root, "allow_tf32")
    with pytest.raises(NotApplicable, match=r"compute capability 7.0; TF32 tensor cores need 8.0"):
        _apply(_repo(_dir(tmp_path, "v100"), LOOP), "allow_tf32",
               capability=7.0)


def test_tf32_without_a_main_function_goes_into_the_guard(tmp_path):
    script = '''\
    import torch

    if __name__ == "__main__":
        model = torch.nn.Linear(4, 4).cuda()
        loss = model(torch.randn(2, 4).cuda()).sum()
        loss.backward()
    '''
    text = _apply(_repo(tmp_path, script), "allow_tf32").files["train.py"]
    assert 'if __name__ == "__main__":\n    torch.set_float32_matmul_precision("high")' in text


# autocast ---------------------------------------------------------------------------------------
def test_autocast_wraps_forward_and_loss_and_leaves_backward_and_step_outside(tmp_path):
    root = _repo(tmp_path, LOOP)
    result = _apply(root, "autocast_forward", capability=9.0)
    text = result.files["train.py"]
    assert ("            opt.zero_grad()\n"
            "            # forward\n"
            "            with torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16):\n"
            "                logits = model(xb)\n"
            "                loss = torch.nn.functional.cross_entropy(logits, yb)\n"
            "            loss.backward()\n"
            "            opt.step()\n") in text
    assert "lines 19-20" in result.summary and result.new_value == "bfloat16"
    with pytest.raises(NotApplicable, match="already uses mixed precision"):
        _apply(_repo(_dir(tmp_path, "again"), text),
               "autocast_forward")


def test_autocast_in_a_trainer_class_step_method(tmp_path):
    trainer = '''\
    import torch


    class Trainer:
        def __init__(self, model, loader):
            self.device = "cuda"
            self.net = model.to(self.device)
            self.opt = torch.optim.AdamW(self.net.parameters())
            self.loader = loader

        def train_step(self, batch):
            inputs, targets = batch
            inputs = inputs.to(self.device)
            targets = targets.to(self.device)
            out = self.net(inputs)
            loss = self.criterion(out, targets)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            return loss

        def fit(self):
            for batch in self.loader:
                self.train_step(batch)
    '''
    text = _apply(_repo(tmp_path, trainer), "autocast_forward").files["train.py"]
    assert ("        targets = targets.to(self.device)\n"
            "        with torch.autocast(device_type=torch.device(self.device).type, dtype=torch.bfloat16):\n"
            "            out = self.net(inputs)\n"
            "            loss = self.criterion(out, targets)\n"
            "        self.opt.zero_grad()\n") in text


def test_autocast_uses_the_frameworks_own_switch(tmp_path):
    lightning = '''\
    import lightning as L

    trainer = L.Trainer(max_epochs=1, accelerator="auto")
    trainer.fit(Model(), Data())
    '''
    result = _apply(_repo(_dir(tmp_path, "pl"), lightning),
                    "autocast_forward")
    assert 'L.Trainer(max_epochs=1, accelerator="auto", precision="bf16-mixed")' in result.files["train.py"]
    hf = '''\
    from transformers import Trainer, TrainingArguments

    args = TrainingArguments(output_dir="out", fp16=False, per_device_train_batch_size=8)
    Trainer(model=model, args=args).train()
    '''
    root = _repo(_dir(tmp_path, "hf"), hf)
    assert 'fp16=False, per_device_train_batch_size=8, bf16=True)' in _apply(root, "autocast_forward").files["train.py"]
    # A GPU without bfloat16 gets float16 through the same switch.
    assert 'fp16=True' in _apply(root, "autocast_forward", capability=7.0).files["train.py"]
    set_already = hf.replace("fp16=False", 'bf16=True')
    root = _repo(_dir(tmp_path, "hf2"), set_already)
    with pytest.raises(NotApplicable, match="already sets bf16=True"):
        _apply(root, "autocast_forward")


def test_float16_where_bfloat16_is_missing_adds_a_grad_scaler(tmp_path):
    result = _apply(_repo(tmp_path, LOOP), "autocast_forward", capability=7.0)
    text = result.files["train.py"]
    assert "dtype=torch.float16" in text and result.new_value == "float16"
    assert ("    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "    for epoch in range(2):\n") in text  # the scaler goes before the inner loop, not the epoch loop
    assert ("        scaler = torch.amp.GradScaler(torch.device(device).type)\n"
            "        for xb, yb in loader:\n") in text
    assert ("            scaler.scale(loss).backward()\n"
            "            scaler.step(opt)\n"
            "            scaler.update()\n") in text
    clipped = LOOP.replace("            opt.step()\n", "            torch.nn.utils.clip_grad_norm_(model.parameters(), 1)\n"
                                                        "            opt.step()\n")
    with pytest.raises(NotApplicable, match="gradient clipping"):
        _apply(_repo(_dir(tmp_path, "c"), clipped), "autocast_forward",
               capability=7.0)


# pinned, non-blocking copies --------------------------------------------------------------------
def test_pinning_and_non_blocking_copies_come_in_one_change(tmp_path):
    root = _repo(tmp_path, LOOP)
    sites = [DataLoaderSite(file="train.py", line=8, kwargs={"pin_memory": False})]
    result = _apply(root, "pinned_non_blocking_copies", sites=sites)
    removed, added = _changed_lines(LOOP, result.files["train.py"])
    assert added == ["    loader = DataLoader(make_data(), batch_size=64, shuffle=True, pin_memory=True)",
                     "            xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)"]
    assert len(removed) == 2 and "model = make_model().to(device)" in result.files["train.py"]
    assert "pin_memory False → True" in result.summary and "non_blocking=True on 2" in result.summary
    # Already pinned: the copies alone. Both done: nothing to do.
    pinned = [DataLoaderSite(file="train.py", line=8, kwargs={"pin_memory": True})]
    assert "pin_memory" not in _apply(root, "pinned_non_blocking_copies", sites=pinned).summary
    (root / "train.py").write_text(result.files["train.py"])
    with pytest.raises(NotApplicable, match="already pins memory and every copy"):
        _apply(root, "pinned_non_blocking_copies", sites=pinned)


# host syncs -------------------------------------------------------------------------------------
def test_host_syncs_become_device_sums_read_once_after_the_loop(tmp_path):
    result = _apply(_repo(tmp_path, LOOP), "defer_host_syncs")
    removed, added = _changed_lines(LOOP, result.files["train.py"])
    assert removed == ["            total += loss.item() * xb.size(0)",
                       "            seen += (logits.argmax(1) == yb).sum().item()",
                       "            losses.append(loss.item())"]
    assert added[-7:] == ["            total += _on_device(loss, as_float=True) * xb.size(0)",
                          "            seen += _on_device((logits.argmax(1) == yb).sum())",
                          "            losses.append(_on_device(loss))",
                          "        # one read of the device values after the loop, instead of one wait per step",
                          "        total = _to_host(total)",
                          "        seen = _to_host(seen)",
                          "        losses[:] = [_to_host(v) for v in losses]"]
    assert "def _on_device(value, as_float=False):" in result.files["train.py"]


@pytest.mark.parametrize(("line", "why"), [
    ("            print(loss.item())\n", "reads a device value for something other than a sum or a list"),
    ("            n = 0\n            n += loss.item() * 2\n", "n does not start from a number literal before the loop"),
])
def test_reads_that_are_needed_now_are_left_alone_and_said(tmp_path, line, why):
    text = LOOP.replace("            opt.step()\n", "            opt.step()\n" + line)
    result = _apply(_repo(tmp_path, text), "defer_host_syncs")
    assert any(why in note for note in result.notes), result.notes


def test_an_int_sum_of_mixed_terms_and_a_list_read_in_the_loop_are_refused(tmp_path):
    text = LOOP.replace("seen += (logits.argmax(1) == yb).sum().item()",
                        "seen += (logits.argmax(1) == yb).sum().item() * 0.5")
    text = text.replace("            losses.append(loss.item())\n",
                        "            losses.append(loss.item())\n            print(losses[-1])\n")
    text = text.replace("total += loss.item() * xb.size(0)", "total += 1")
    with pytest.raises(NotApplicable) as refused:
        _apply(_repo(tmp_path, text), "defer_host_syncs")
    assert "seen starts as an int" in str(refused.value) and "the list losses is also used" in str(refused.value)


# CPU-only pipelines -----------------------------------------------------------------------------
@pytest.mark.parametrize("codemod", GPU_CODEMODS)
def test_every_gpu_codemod_refuses_a_pipeline_that_never_names_cuda(tmp_path, codemod):
    root = make_repo(tmp_path / "repo", "compute")
    sites = [DataLoaderSite(file="train.py", line=17, kwargs={"pin_memory": False})]
    with pytest.raises(NotApplicable, match=r"no `cuda` device in the target's code \(train.py\): this pipeline "
                                            r"runs on the CPU, where"):
        _apply(root, codemod, sites=sites)


# the edits run: same numbers --------------------------------------------------------------------
def _run(folder: Path, tmp_path: Path, epochs: int = 3) -> str:
    config = tmp_path / "three_epochs.json"
    config.write_text(json.dumps({"seed": 5, "epochs": epochs, "batch_size": 64, "num_workers": 0, "hidden": 512}))
    done = subprocess.run([sys.executable, "train.py", "--config", str(config)], cwd=folder, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_exact_gpu_edits_print_the_same_numbers_on_the_cpu(tmp_path):
    """Deferred syncs, non-blocking copies and TF32 change nothing a CPU run prints, to the digit."""
    root = make_repo(tmp_path / "repo", "gpu_loop")
    baseline = _run(root, tmp_path)
    assert baseline.count("epoch") == 3
    sites = [DataLoaderSite(file="train.py", line=22, kwargs={"pin_memory": False})]
    for codemod in ("defer_host_syncs", "pinned_non_blocking_copies", "allow_tf32"):
        result = _apply(root, codemod, sites=sites)
        edited = tmp_path / codemod
        edited.mkdir()
        (edited / "train.py").write_text(result.files["train.py"])
        assert _run(edited, tmp_path) == baseline, codemod


# the precision rule ------------------------------------------------------------------------------
def test_the_precision_rule_catches_a_shared_bias_that_every_step_bound_lets_through():
    import random

    rng = random.Random(0)
    base = [2.0 * 0.97 ** k + 0.1 for k in range(60)]
    noisy = [v * (1 + rng.uniform(-3e-3, 3e-3)) for v in base]  # bf16-like rounding, independent per step
    biased = [v * 1.006 for v in base]  # each step 0.6% high: inside the 1% per-step bound
    assert compare_losses([base], [noisy], rtol=1e-2, atol=1e-6, mean_rtol=2e-3).status == "within_tolerance"
    assert compare_losses([base], [biased], rtol=1e-2, atol=1e-6).status == "within_tolerance"
    caught = compare_losses([base], [biased], rtol=1e-2, atol=1e-6, mean_rtol=2e-3)
    assert caught.status == "diverged" and "running mean of the first" in caught.detail
    assert "max(loss_mean_rtol 0.002, rtol 0.01/sqrt(" in caught.detail


def test_precision_remedies_wait_for_a_person_unless_allow_precision():
    from perfloop.knowledge_base import Verification, load_entries

    precision = Verification(data="identical", loss="within_tolerance", loss_rtol=1e-2, tolerance_class="precision")
    assert precision.loss_mean_rtol == pytest.approx(2e-3)  # the class's default: loss_rtol / 5
    assert precision.needs_person(allow_precision=False) and not precision.needs_person(allow_precision=True)
    assert not precision.needs_explicit_approval  # not changes-data: a person, or --allow-precision
    changes = Verification(data="within_tolerance", loss="within_tolerance", tolerance_class="changes-data")
    assert changes.needs_person(allow_precision=True)
    with pytest.raises(ValueError, match="precision needs loss: within_tolerance"):
        Verification(data="identical", loss="identical", tolerance_class="precision")
    remedies = {r.id: r for e in load_entries() for r in e.remedies}
    for rid, codemod in (("allow_tf32", "allow_tf32"), ("bf16_autocast", "autocast_forward"),
                         ("non_blocking_copies", "pinned_non_blocking_copies"), ("defer_host_syncs", "defer_host_syncs"),
                         ("cuda_graphs_reduce_overhead", "enable_torch_compile")):
        assert remedies[rid].kind == "codemod" and remedies[rid].codemod == codemod, rid
    assert remedies["cuda_graphs_reduce_overhead"].params == {"mode": "reduce-overhead"}
    assert remedies["bf16_autocast"].verification.loss_mean_rtol == 2e-3


@pytest.mark.slow
def test_bf16_autocast_on_the_cpu_is_judged_by_the_precision_rule_through_the_real_nodes(tmp_path):
    """The gpu_loop pipeline, profiled; bf16_autocast proposed by its codemod, then verified for real."""
    from perfloop.agent.nodes.approve import approval_request
    from perfloop.agent.nodes.optimize import optimize
    from perfloop.agent.nodes.prepare import prepare
    from perfloop.agent.nodes.profile import profile
    from perfloop.agent.nodes.verify import verify
    from perfloop.agent.rule import rule_of
    from perfloop.agent.runs import new_run_id
    from perfloop.agent.state import LoopState, RemedyRef, Settings
    from perfloop.knowledge_base import describe, load_entries
    from perfloop.sandbox.workspace import Workspace
    from perfloop.tools.contract.target import load_target

    target = load_target(make_repo(tmp_path / "repo", "gpu_loop"))
    run_id = new_run_id()
    state = LoopState(run_id=run_id, target=target, settings=Settings(auto_approve=True),
                      state_dir=str(Workspace(target.repo_root, run_id).state_dir))
    state = state.model_copy(update=prepare(state))
    state = state.model_copy(update=profile(state))
    entry = next(e for e in load_entries() if e.id == "no_mixed_precision")
    diagnosis = describe(entry, state.profile.metrics())
    state = state.model_copy(update={"diagnoses": [diagnosis],
                                     "next_remedy": RemedyRef(diagnosis=entry.id, remedy="bf16_autocast")})
    state = state.model_copy(update=optimize(state))
    proposal = state.proposal
    assert proposal is not None and "torch.autocast" in proposal.patch and "dtype=torch.bfloat16" in proposal.patch
    rule = rule_of(state, proposal)
    assert rule.enforced.tolerance_class == "precision" and rule.policy.loss.mean_rtol == 2e-3
    assert rule.needs_person(allow_precision=False) and not rule.needs_person(allow_precision=True)
    request = approval_request(state)
    assert any("LOWER PRECISION" in c and "--allow-precision" in c for c in request.caveats)
    # The real approve node, in a graph with a checkpointer: --auto-approve alone pauses for a person.
    assert "__interrupt__" in _approve_alone(state)
    allowed = state.model_copy(update={"settings": state.settings.model_copy(update={"allow_precision": True})})
    assert _approve_alone(allowed).get("decided_by") == "auto-approve"
    from perfloop.agent.nodes.schedule import _needs_person

    ref = RemedyRef(diagnosis=entry.id, remedy="bf16_autocast")
    assert _needs_person(state, ref) and not _needs_person(allowed, ref)
    assert any("the precision rule: the running mean of the first k losses" in line for line in request.verification)
    verdict = verify(state)["history"][-1].verdict
    assert verdict.stage not in ("smoke", "data", "loss", "side_outputs"), verdict.reason
    assert verdict.loss.status == "within_tolerance", verdict.loss.detail
    assert "running mean within loss_mean_rtol 0.002" in verdict.loss.detail
    assert verdict.data.status == "identical"



def _approve_alone(state) -> dict:
    """Run perfloop's approve node as the only node of a checkpointed graph; return what invoke returns."""
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.graph import END, START, StateGraph

    from perfloop.agent.nodes.approve import approve
    from perfloop.agent.state import LoopState

    graph = StateGraph(LoopState)
    graph.add_node("approve", approve)
    graph.add_edge(START, "approve")
    graph.add_edge("approve", END)
    compiled = graph.compile(checkpointer=MemorySaver())
    return compiled.invoke(state, {"configurable": {"thread_id": "t"}})


def test_amp_code_is_found_by_its_scaled_backward_and_a_framework_loop_gets_pinning_alone(tmp_path):
    amp = LOOP.replace("            loss.backward()\n            opt.step()\n",
                       "            scaler.scale(loss).backward()\n            scaler.step(opt)\n            scaler.update()\n")
    result = _apply(_repo(_dir(tmp_path, "amp"), amp), "defer_host_syncs")
    assert "total += _on_device(loss, as_float=True) * xb.size(0)" in result.files["train.py"]
    lightning = '''\
    import lightning as L
    import torch
    from torch.utils.data import DataLoader


    class Data(L.LightningDataModule):
        def train_dataloader(self):
            return DataLoader(self.ds, batch_size=32, num_workers=2)


    if __name__ == "__main__":
        L.Trainer(accelerator="cuda").fit(Model(), Data())
    '''
    root = _repo(_dir(tmp_path, "pl"), lightning)
    pinned = _apply(root, "pinned_non_blocking_copies")
    assert "DataLoader(self.ds, batch_size=32, num_workers=2, pin_memory=True)" in pinned.files["train.py"]
    assert any("pinning alone" in note for note in pinned.notes)
