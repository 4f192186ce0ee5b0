"""Guard the knowledge base: entries load, trigger on fixtures, rank by Amdahl, fail loudly."""

import ast
import json
import sys
from pathlib import Path

import pytest
import yaml

from perfloop.knowledge_base import (
    ENTRIES_DIR,
    METRICS,
    Condition,
    Diagnosis,
    ExpectedGain,
    Remedy,
    describe,
    diagnose,
    explain,
    load_entries,
)

FIXTURES_DIR = Path(__file__).parent / "data" / "kb"
PACKAGE_DIR = ENTRIES_DIR.parent
ENTRY_IDS = sorted(path.stem for path in ENTRIES_DIR.glob("*.yaml"))
FIXTURE_IDS = sorted(path.stem for path in FIXTURES_DIR.glob("*.json"))


def fixture(entry_id: str) -> dict:
    return json.loads((FIXTURES_DIR / f"{entry_id}.json").read_text())


def entry(entry_id: str):
    return next(e for e in load_entries() if e.id == entry_id)


def matched_ids(metrics) -> list[str]:
    """Entries whose symptoms hold outright (near matches, with low confidence, left out)."""
    return [d.entry_id for d in diagnose(metrics) if not d.confidence_reason.startswith("near match")]


def near_ids(metrics) -> list[str]:
    """Entries diagnosed only because a threshold was nearly met."""
    found = [d for d in diagnose(metrics) if d.confidence_reason.startswith("near match")]
    assert all(d.confidence == "low" for d in found)
    return [d.entry_id for d in found]


def test_bundled_entries_are_the_agreed_set():
    assert ENTRY_IDS == sorted(
        [
            "dataloader_starved",
            "transform_hotspot",
            "slow_collate",
            "copy_heavy_conversion",
            "per_step_python_overhead",
            "worker_startup_every_epoch",
            "compute_bound",
            "thread_oversubscription",
            "too_many_workers",
            "small_file_reads",
            "decode_heavy_samples",
            "per_sample_tokenization",
            "gc_pauses",
            "host_sync_every_step",
            "pageable_h2d",
            "kernel_launch_overhead",
            "no_mixed_precision",
            "batch_too_small",
            "memory_pressure",
            "hidden_input_contention",
            "rank_straggler",
        ]
    )
    assert len(ENTRY_IDS) >= 16
    assert sorted(e.id for e in load_entries()) == ENTRY_IDS


def test_every_entry_has_fixtures_and_every_fixture_an_entry():
    assert FIXTURE_IDS == ENTRY_IDS, "entries/<id>.yaml and tests/data/kb/<id>.json go in pairs"
    for entry_id in ENTRY_IDS:
        assert set(fixture(entry_id)) - {"provenance"} == {"triggers", "does_not_trigger"}, entry_id


def _needs_cuda(entry_id: str) -> bool:
    return any(c.metric == "device" and c.value == "cuda" for c in entry(entry_id).symptoms.all_of)


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_gpu_only_fixtures_say_where_they_come_from(entry_id):
    # A GPU-shaped profile that was not measured on this machine must say so, so nobody mistakes it.
    if _needs_cuda(entry_id):
        assert "GPU" in fixture(entry_id).get("provenance", ""), entry_id
        assert fixture(entry_id)["triggers"]["device"] == "cuda"


@pytest.mark.parametrize("entry_id", FIXTURE_IDS)
def test_fixtures_use_only_known_metrics(entry_id):
    # A misspelt metric would silently never trigger, making the fixture test vacuous.
    for case, metrics in fixture(entry_id).items():
        if case == "provenance":
            continue
        assert set(metrics) <= set(METRICS), f"{entry_id}.{case}: {set(metrics) - set(METRICS)}"


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_entry_triggers_on_its_fixture(entry_id):
    metrics = fixture(entry_id)["triggers"]
    assert entry_id in matched_ids(metrics), explain(entry(entry_id), metrics).render()


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_entry_stays_quiet_on_its_near_miss(entry_id):
    # Its symptoms do not hold; it may still be named as a near match, but only with low confidence.
    metrics = fixture(entry_id)["does_not_trigger"]
    assert entry_id not in matched_ids(metrics), explain(entry(entry_id), metrics).render()


@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_summary_cites_every_number(entry_id):
    diagnosis = describe(entry(entry_id), fixture(entry_id)["triggers"])
    assert "n/a" not in diagnosis.summary and "\n" not in diagnosis.summary
    assert f"{diagnosis.expected_speedup:.2f}x" in diagnosis.summary
    assert None not in diagnosis.evidence.values(), diagnosis.evidence


@pytest.mark.parametrize(
    ("entry_id", "metric", "at", "beyond"),
    [
        # TF profiler: >= 20% input is "highly input-bound", < 5% is not input-bound.
        ("dataloader_starved", "data_wait_share", 0.20, 0.19),
        ("transform_hotspot", "build_wait_share", 0.20, 0.19),
        ("slow_collate", "build_wait_share", 0.20, 0.19),
        ("copy_heavy_conversion", "build_wait_share", 0.20, 0.19),
        ("compute_bound", "input_share", 0.049, 0.05),
        ("compute_bound", "compute_share", 0.70, 0.69),
        # TF profiler: "all other time" 15% tier.
        ("per_step_python_overhead", "other_share", 0.15, 0.14),
        ("transform_hotspot", "transform_share", 0.5, 0.49),
        ("slow_collate", "collate_share", 0.4, 0.39),
        ("worker_startup_every_epoch", "epoch_stall_share", 0.10, 0.09),
        ("worker_startup_every_epoch", "num_workers", 1, 0),
        ("dataloader_starved", "num_workers", 15, 16),  # the fixture has 16 cores
        # workers x threads > usable cores.
        ("thread_oversubscription", "cpu_oversubscription", 1.01, 1.0),
        ("too_many_workers", "epoch_stall_share", 0.05, 0.049),
        ("small_file_reads", "build_cpu_share", 0.49, 0.5),
        ("small_file_reads", "build_wait_share", 0.20, 0.19),
        ("decode_heavy_samples", "hot_function_share", 0.30, 0.29),
        ("per_sample_tokenization", "build_wait_share", 0.20, 0.19),
        ("gc_pauses", "gc_share", 0.05, 0.049),
        ("host_sync_every_step", "sync_wait_share", 0.05, 0.049),
        ("host_sync_every_step", "sync_calls_per_step", 1, 0),
        # TF profiler: 5-20% input is moderately input-bound.
        ("pageable_h2d", "h2d_share", 0.05, 0.049),
        # PyTorch TensorBoard plugin: GPU busy < 50% suggests a bigger batch.
        ("kernel_launch_overhead", "gpu_busy_share", 0.49, 0.50),
        ("batch_too_small", "gpu_idle_share", 0.51, 0.50),
        ("batch_too_small", "input_share", 0.19, 0.20),
        # Tensor cores: float16 from Volta (7.0), TF32 and bfloat16 from Ampere (8.0).
        ("no_mixed_precision", "cuda_capability", 7.0, 6.1),
        ("no_mixed_precision", "autocast_used", 0, 1),
        # PyTorch TensorBoard plugin: peak memory > 90%.
        ("memory_pressure", "gpu_memory_peak_share", 0.90, 0.89),
        # PyTorch TensorBoard plugin: communication > 10% of the step.
        ("rank_straggler", "rank_wait_spread_share", 0.10, 0.099),
    ],
)
def test_thresholds_sit_at_the_documented_tiers(entry_id, metric, at, beyond):
    metrics = fixture(entry_id)["triggers"]
    assert entry_id in matched_ids(metrics | {metric: at})
    assert entry_id not in matched_ids(metrics | {metric: beyond})


def _numeric_conditions():
    for e in load_entries():
        for k, c in enumerate(e.symptoms.all_of):
            if c.op in ("<", "<=", ">", ">=") and c.value_from is None and c.value:
                yield pytest.param(e.id, k, id=f"{e.id}-{c.metric}")


@pytest.mark.parametrize(("entry_id", "k"), list(_numeric_conditions()))
def test_every_threshold_at_its_edges_holds_then_nearly_holds_then_fails(entry_id, k):
    # Thresholds are not cliffs: just past one, the entry is still diagnosed (low confidence, ranked by
    # its gain); well past it, it is not.
    condition = entry(entry_id).symptoms.all_of[k]
    metrics = fixture(entry_id)["triggers"]
    up = condition.op in ("<", "<=")  # the wrong side is above the threshold
    t = condition.value
    just_past = t * (1.1 if up else 0.9) if t > 0 else t * (0.9 if up else 1.1)
    well_past = t * (1.6 if up else 0.4) if t > 0 else t * (0.4 if up else 1.6)
    edge = t if condition.op in ("<=", ">=") else t * (0.999 if up else 1.001) if t > 0 else t * (1.001 if up else 0.999)
    assert entry_id in matched_ids(metrics | {condition.metric: edge})
    assert entry_id in near_ids(metrics | {condition.metric: just_past})
    (diagnosis,) = [d for d in diagnose(metrics | {condition.metric: just_past}) if d.entry_id == entry_id]
    assert diagnosis.confidence == "low" and f"misses `{condition.op} {t:g}`" in diagnosis.confidence_reason
    assert entry_id not in matched_ids(metrics | {condition.metric: well_past}) + near_ids(
        metrics | {condition.metric: well_past})


def test_nanogpt_on_cpu_is_compute_bound_near_its_threshold_and_offers_compile():
    # karpathy/nanoGPT, CPU config: forward + backward 88%, optimizer 7%, data wait 5% (the ledger).
    metrics = fixture("compute_bound")["triggers"] | {"input_share": 0.05, "data_wait_share": 0.05,
                                                      "compute_share": 0.95}
    (top, *_) = diagnose(metrics)
    assert top.entry_id == "compute_bound" and top.confidence == "low"
    assert "input_share = 0.05 misses `< 0.05`" in top.confidence_reason
    assert "torch_compile" in [r.id for r in top.remedies]


@pytest.mark.parametrize("source", ["    y = x.tolist()", "    t = torch.tensor(rows)"])
def test_either_copy_pattern_alone_triggers_copy_heavy_conversion(source):
    metrics = fixture("copy_heavy_conversion")["triggers"] | {"hot_function_source": source}
    assert "copy_heavy_conversion" in matched_ids(metrics)


def test_summary_of_a_sparse_profile_says_n_a_instead_of_failing():
    summary = describe(entry("dataloader_starved"), {"data_wait_share": 0.5}).summary
    assert summary.startswith("the model waits 50% of every step for data with n/a worker(s)")
    assert "None" not in summary and "expected gain up to 2.00x" in summary


def test_an_aside_whose_metric_is_missing_is_left_out():
    # hidden_input_contention names the hot function in an aside: without one the sentence still reads.
    metrics = {"headspace_share": 0.4, "data_wait_share": 0.05}
    summary = describe(entry("hidden_input_contention"), metrics).summary
    assert "(in" not in summary and "n/a" not in summary and "training loop; expected gain" in summary
    named = describe(entry("hidden_input_contention"), metrics | {"hot_function": "f (data.py:3)"}).summary
    assert "training loop (in f (data.py:3)); expected gain" in named


def test_dataloader_starved_diagnosis_reads_with_its_numbers():
    (diagnosis,) = diagnose(fixture("dataloader_starved")["triggers"])
    assert diagnosis.summary == (
        "the model waits 62% of every step for data with 2 worker(s) on 16 cores; a batch "
        "takes 130.0 ms to build vs 21.8 ms of compute, so about 6 workers are needed; "
        "expected gain up to 2.63x"
    )
    assert diagnosis.evidence["compute_ms"] == pytest.approx(0.33 * 66.0)
    assert [r.codemod for r in diagnosis.remedies] == ["set_num_workers"]
    assert diagnosis.remedies[0].params == {"value": "auto"}
    assert any("random augmentation" in c for c in diagnosis.remedies[0].verification.caveats)


def test_compute_bound_offers_model_side_codemods():
    assert [r.codemod for r in entry("compute_bound").remedies] == [
        "set_optimizer_flag", "enable_torch_compile", "set_optimizer_flag", "set_intra_op_threads",
        "set_zero_grad_to_none"]
    assert entry("compute_bound").expected_gain.stage_speedup == 1.3


@pytest.mark.parametrize(
    ("data_wait", "other", "first"),
    [(0.40, 0.20, "dataloader_starved"), (0.20, 0.45, "per_step_python_overhead")],
)
def test_bigger_share_ranks_first(data_wait, other, first):
    metrics = {"data_wait_share": data_wait, "other_share": other, "num_workers": 2, "cpu_count": 8}
    ranked = diagnose(metrics)
    assert [d.entry_id for d in ranked][0] == first
    assert {d.entry_id for d in ranked} == {"dataloader_starved", "per_step_python_overhead"}
    assert ranked[0].expected_speedup > ranked[1].expected_speedup


def test_equal_speedups_put_the_codemod_remedy_first():
    metrics = {"data_wait_share": 0.5, "build_wait_share": 0.5, "hot_function_share": 1.0,
               "hot_function_step_share": 0.5,
               "num_workers": 2, "cpu_count": 8}
    assert matched_ids(metrics) == ["dataloader_starved", "transform_hotspot"]
    reversed_entries = list(reversed(load_entries()))
    ranked = [d.entry_id for d in diagnose(metrics, reversed_entries)]
    assert ranked == ["transform_hotspot", "dataloader_starved"]


@pytest.mark.parametrize(
    ("share", "stage_speedup", "expected"),
    [
        (0.4, None, 1 / 0.6),  # field notes: 500 ms build vs 300 ms compute, 200 ms wait
        (0.5, 2.0, 1 / 0.75),
        (0.85, 1.3, 1 / (0.15 + 0.85 / 1.3)),
        (0.0, None, 1.0),
        (1.0, None, 100.0),  # capped: a 100% share means the rest went unseen
    ],
)
def test_amdahl_matches_hand_computed_values(share, stage_speedup, expected):
    gain = ExpectedGain(share_metric="data_wait_share", stage_speedup=stage_speedup)
    assert gain.expected_speedup({"data_wait_share": share}) == pytest.approx(expected)


@pytest.mark.parametrize("metrics", [{}, {"data_wait_share": None}, {"data_wait_share": "high"}])
def test_amdahl_without_a_share_is_no_gain(metrics):
    assert ExpectedGain(share_metric="data_wait_share").expected_speedup(metrics) == 1.0


@pytest.mark.parametrize(
    ("op", "value", "actual", "held"),
    [
        ("<", 3, 2, True), ("<", 3, 3, False),
        ("<=", 3, 3, True), ("<=", 3, 4, False),
        (">", 0.2, 0.3, True), (">", 0.2, 0.2, False),
        (">=", 0.2, 0.2, True), (">=", 0.2, 0.1, False),
        ("==", 0, 0, True), ("==", 0, 1, False),
        ("!=", 0, 1, True), ("!=", 0, 0, False),
        ("contains", ".tolist()", "y = x.tolist()", True),
        ("contains", ".tolist()", "y = x", False),
        ("in", ["cpu", "cuda"], "cuda", True), ("in", ["cpu"], "cuda", False),
    ],
)
def test_condition_ops(op, value, actual, held):
    metric = {"in": "device", "contains": "hot_function_source"}.get(op, "num_workers")
    assert Condition(metric=metric, op=op, value=value).holds({metric: actual}) is held


@pytest.mark.parametrize("op", ["<", ">=", "==", "!="])
@pytest.mark.parametrize("metrics", [{}, {"num_workers": None}, {"num_workers": "four"}])
def test_missing_or_mistyped_metric_makes_condition_false(op, metrics):
    assert Condition(metric="num_workers", op=op, value=4).holds(metrics) is False


def test_value_from_compares_two_metrics_and_is_false_when_either_is_missing():
    fewer = Condition(metric="num_workers", op="<", value_from="cpu_count")
    assert fewer.holds({"num_workers": 2, "cpu_count": 8})
    assert not fewer.holds({"num_workers": 8, "cpu_count": 8})
    assert not fewer.holds({"num_workers": 2})


def test_empty_profile_matches_nothing():
    assert diagnose({}) == []


def test_explain_reports_held_failed_and_missing():
    metrics = {"data_wait_share": 0.5, "num_workers": 8, "cpu_count": 8}
    explanation = explain(entry("dataloader_starved"), metrics)
    assert not explanation.matched
    assert [c.status for c in explanation.all_of] == ["held", "failed"]
    assert "num_workers = 8 < cpu_count (8): failed" in explanation.render()
    quiet = explain(entry("copy_heavy_conversion"), {"data_wait_share": 0.5})
    assert [c.status for c in quiet.any_of] == ["missing", "missing"]
    assert json.loads(explanation.model_dump_json())["all_of"][0]["text"].endswith("held")


def test_diagnosis_round_trips_through_json():
    diagnoses = diagnose(fixture("worker_startup_every_epoch")["triggers"])
    assert len(diagnoses) == 2
    for diagnosis in diagnoses:
        assert Diagnosis.model_validate_json(diagnosis.model_dump_json()) == diagnosis


def test_duplicate_entry_ids_are_refused():
    entries = load_entries()
    with pytest.raises(ValueError, match=f"entry {entries[0].id} is defined twice"):
        diagnose({}, entries + [entries[0]])


def test_remedy_kind_needs_its_field():
    verification = {"data": "identical", "loss": "identical"}
    with pytest.raises(ValueError, match="codemod remedy needs `codemod"):
        Remedy(id="r", kind="codemod", summary="s", verification=verification)
    with pytest.raises(ValueError, match="llm remedy needs `instructions`"):
        Remedy(id="r", kind="llm", summary="s", verification=verification)
    remedy = Remedy(id="r", kind="llm", instructions="do", summary="s", verification=verification)
    assert (remedy.verification.atol, remedy.verification.rtol) == (1e-5, 1e-5)


def _write_entry(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load((ENTRIES_DIR / "dataloader_starved.yaml").read_text())
    mutate(data)
    path = tmp_path / "dataloader_starved.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _set(path: str, value):
    def mutate(data):
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        if value is _DELETE:
            del node[last]
        else:
            node[int(last) if last.isdigit() else last] = value

    return mutate


_DELETE = object()


@pytest.mark.parametrize(
    ("mutate", "field", "says"),
    [
        (_set("title", _DELETE), "title", "add it"),
        (_set("titel", "typo"), "titel", "fix its spelling"),
        (_set("id", "other_id"), "id", "file stem"),
        (_set("remedies.0.codemod", None), "remedies.0.codemod", "needs `codemod"),
        (_set("symptoms.all_of.0.metric", "data_wait_shar"), "symptoms.all_of.0.metric", "unknown"),
        (_set("symptoms.all_of.0.value", "high"), "symptoms.all_of.0", "needs a number"),
        (_set("category", "gpu"), "category", "allowed values"),
        (_set("summary_template", "waits {data_wait:.0%}"), "summary_template", "not a metric"),
        (_set("expected_gain.share_metric", "step_ms"), "expected_gain.share_metric", "a share"),
        # Checked when the entry loads, not mid-verify (the validator once sat after a return).
        (_set("remedies.0.verification.side_output_changes", ["epoch (unclosed"]),
         "remedies.0.verification.side_output_changes", "not a regular expression"),
    ],
)
def test_bad_entry_error_names_file_and_field(tmp_path, mutate, field, says):
    _write_entry(tmp_path, mutate)
    with pytest.raises(ValueError) as info:
        load_entries(tmp_path)
    message = str(info.value)
    assert "dataloader_starved.yaml" in message and f"field '{field}'" in message, message
    assert says in message, message


def test_unparsable_yaml_names_the_file(tmp_path):
    (tmp_path / "broken_entry.yaml").write_text("id: broken_entry\ntitle: [unclosed\n")
    with pytest.raises(ValueError, match=r"broken_entry\.yaml: not valid YAML"):
        load_entries(tmp_path)


def test_empty_folder_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="holds no"):
        load_entries(tmp_path)


def test_package_imports_only_stdlib_pydantic_yaml_itself_and_the_contracts():
    allowed = set(sys.stdlib_module_names) | {"pydantic", "yaml"}
    for path in PACKAGE_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                ours = name.startswith(("perfloop.knowledge_base", "perfloop.contracts"))
                assert ours or name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_stage_speedup_can_come_from_a_metric():
    from perfloop.knowledge_base import ExpectedGain

    gain = ExpectedGain(share_metric="data_wait_share", stage_speedup_from="worker_scaling")
    assert gain.expected_speedup({"data_wait_share": 0.5, "worker_scaling": 2.0}) == pytest.approx(1 / 0.75)
    # Without the metric the stage is assumed to vanish: the Amdahl bound.
    assert gain.expected_speedup({"data_wait_share": 0.5}) == pytest.approx(2.0)


# -- tolerance classes ------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "loss", "wider", "derived"),
    [("identical", "identical", {}, "exact"), ("within_tolerance", "within_tolerance", {}, "reorder"),
     ("within_tolerance", "identical", {}, "reorder"), ("identical", "within_tolerance", {}, "reorder"),
     ("identical", "within_tolerance", {"loss_rtol": 1e-2}, "precision")],
)
def test_tolerance_class_defaults_from_the_data_and_loss_rules(data, loss, wider, derived):
    from perfloop.knowledge_base import Verification

    assert Verification(data=data, loss=loss, **wider).tolerance_class == derived


def test_every_bundled_remedy_has_a_tolerance_class_and_old_entries_keep_theirs():
    classes = {r.id: r.verification.tolerance_class for e in load_entries() for r in e.remedies}
    assert set(classes.values()) <= {"exact", "reorder", "precision", "changes-data"}
    assert classes["raise_num_workers"] == "exact"
    assert classes["vectorize_hot_function"] == "reorder"


@pytest.mark.parametrize(
    ("fields", "says"),
    [({"data": "within_tolerance", "loss": "identical", "tolerance_class": "exact"}, "exact needs"),
     ({"data": "within_tolerance", "loss": "within_tolerance", "tolerance_class": "precision"}, "precision keeps"),
     ({"data": "identical", "loss": "identical", "tolerance_class": "approximate"}, "exact")],
)
def test_inconsistent_tolerance_class_is_refused(fields, says):
    from perfloop.knowledge_base import Verification

    with pytest.raises(ValueError, match=says):
        Verification(**fields)


def test_changes_data_needs_explicit_approval_and_says_not_equivalent():
    from perfloop.knowledge_base import Verification

    check = Verification(data="within_tolerance", loss="within_tolerance", tolerance_class="changes-data")
    assert check.needs_explicit_approval and check.equivalence.startswith("not equivalent")
    assert not Verification(data="identical", loss="within_tolerance").needs_explicit_approval


def test_kb_command_lists_each_remedys_tolerance_class():
    import subprocess

    root = PACKAGE_DIR.parent
    run = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "kb", "transform_hotspot"], cwd=root,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "tolerance class reorder (equivalent within dtype tolerance" in run.stdout
    listing = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "kb"], cwd=root,
                             capture_output=True, text=True, timeout=120)
    assert "raise_num_workers (codemod, exact)" in listing.stdout


@pytest.mark.parametrize("entry_id", ["host_sync_every_step", "pageable_h2d", "kernel_launch_overhead",
                                      "no_mixed_precision", "batch_too_small", "memory_pressure"])
def test_gpu_only_entries_stay_quiet_on_a_cpu_run(entry_id):
    metrics = fixture(entry_id)["triggers"] | {"device": "cpu"}
    assert entry_id not in matched_ids(metrics)


def test_changes_data_remedies_are_marked_not_equivalent():
    classes = {r.id: r.verification for e in load_entries() for r in e.remedies}
    assert classes["raise_batch_size"].tolerance_class == "changes-data"
    assert classes["decode_at_reduced_size"].needs_explicit_approval
    assert {classes[r].tolerance_class for r in ("allow_tf32", "bf16_autocast")} == {"precision"}
    assert classes["cuda_graphs_reduce_overhead"].tolerance_class == "reorder"


def test_oversubscription_counts_only_busy_workers():
    from tests.test_models import profile

    # 2 workers taking 8 ms a batch against a 20 ms step: 0.4 of a worker is busy on average.
    busy = profile(num_workers=2, data_wait_ms=5.0, build_ms=8.0).model_copy(update={"torch_threads": 4})
    metrics = busy.metrics()
    assert metrics["cpu_demand"] == pytest.approx(4 + 0.4)
    assert metrics["cpu_oversubscription"] == pytest.approx(4.4 / 4)


def test_too_many_workers_fires_past_the_cores_or_past_twice_the_need():
    metrics = fixture("too_many_workers")["triggers"] | {"num_workers": 12}  # within the 16 cores
    assert "too_many_workers" in matched_ids(metrics | {"worker_scaling": 0.5})
    assert "too_many_workers" not in matched_ids(metrics | {"worker_scaling": 0.51})
    assert "too_many_workers" in near_ids(metrics | {"worker_scaling": 0.51})
    assert "too_many_workers" not in near_ids(metrics | {"worker_scaling": 0.7})
    assert "too_many_workers" in matched_ids(metrics | {"num_workers": 17, "worker_scaling": 0.51})


def test_allocator_retries_alone_mean_memory_pressure():
    metrics = fixture("memory_pressure")["does_not_trigger"]
    assert "memory_pressure" in matched_ids(metrics | {"gpu_alloc_retries": 3})


# -- each diagnosis as a claim ------------------------------------------------------
def test_diagnosis_is_a_claim_with_confidence_evidence_check_and_first_remedy():
    (diagnosis,) = diagnose(fixture("dataloader_starved")["triggers"])
    assert diagnosis.confidence == "high"
    assert "data_wait_share = 0.62 vs 0.2" in diagnosis.confidence_reason
    assert diagnosis.symptoms_held == ["data_wait_share = 0.62 >= 0.2", "num_workers = 2 < cpu_count (16)"]
    assert diagnosis.first_remedy == "raise_num_workers"
    assert diagnosis.confirm_by.startswith("re-profile after raise_num_workers: data_wait_share should fall from 62%")
    assert diagnosis.shares == {"input_share": 0.63, "compute_share": 0.33, "other_share": 0.04}


@pytest.mark.parametrize(
    ("update", "level", "says"),
    [({"data_wait_share": 0.22}, "medium", "within 25% of its threshold 0.2"),
     ({"noise_pct": 300.0}, "low", "within the run-to-run noise"),
     ({"worker_fetch_ms": None}, "low", "lacks worker_fetch_ms")],
)
def test_confidence_falls_near_thresholds_in_noise_and_without_evidence(update, level, says):
    (diagnosis,) = diagnose(fixture("dataloader_starved")["triggers"] | update)
    assert diagnosis.confidence == level and says in diagnosis.confidence_reason


def test_informational_entry_names_no_first_remedy():
    informational = entry("compute_bound").model_copy(update={"remedies": []})
    diagnosis = describe(informational, fixture("compute_bound")["triggers"])
    assert diagnosis.first_remedy is None and diagnosis.confirm_by.startswith("a change aimed at it")


def test_compare_says_the_bottleneck_moved_with_both_shares():
    from perfloop.knowledge_base import compare

    before_metrics = {"input_share": 0.80, "compute_share": 0.15, "data_wait_share": 0.80, "num_workers": 0,
                      "cpu_count": 8}
    after_metrics = {"input_share": 0.04, "compute_share": 0.70}
    before, after = diagnose(before_metrics)[0], diagnose(after_metrics)[0]
    assert compare(before_metrics, after_metrics, before, after) == (
        "bottleneck moved: was input-bound 80% (dataloader_starved), now compute-bound 70% (compute_bound)")
    assert compare(before_metrics, {}, before, None) == (
        "bottleneck moved: was input-bound 80% (dataloader_starved), now no known bottleneck matches")


def test_compare_says_the_bottleneck_stayed():
    from perfloop.knowledge_base import bottleneck_moved, compare

    before_metrics = {"input_share": 0.80, "data_wait_share": 0.80, "num_workers": 0, "cpu_count": 8}
    after_metrics = {"input_share": 0.55, "data_wait_share": 0.55, "num_workers": 2, "cpu_count": 8}
    before, after = diagnose(before_metrics)[0], diagnose(after_metrics)[0]
    assert not bottleneck_moved(before, after)
    assert compare(before_metrics, after_metrics, before, after) == (
        "bottleneck stayed: still input-bound, 80% -> 55% of the step (dataloader_starved -> dataloader_starved)")


def test_old_diagnoses_without_claim_fields_still_load():
    old = {"entry_id": "x", "title": "t", "category": "input", "expected_speedup": 1.5, "evidence": {},
           "remedies": [], "summary": "s"}
    diagnosis = Diagnosis.model_validate(old)
    assert diagnosis.confidence == "medium" and diagnosis.first_remedy is None and diagnosis.shares == {}



# -- headspace ------------------------------------------------------------------------
def test_small_headspace_says_the_input_side_is_not_the_problem():
    metrics = fixture("dataloader_starved")["triggers"]
    assert "dataloader_starved" in matched_ids(metrics | {"headspace_share": 0.05})
    assert matched_ids(metrics | {"headspace_share": 0.049}) == []


def test_large_headspace_bounds_data_side_gains():
    metrics = fixture("dataloader_starved")["triggers"]
    (unbounded,) = diagnose(metrics)
    (bounded,) = diagnose(metrics | {"headspace_share": 0.30})
    assert unbounded.expected_speedup == pytest.approx(2.63, abs=0.01)
    assert bounded.expected_speedup == pytest.approx(1 / 0.7)
    assert "expected gain up to 1.43x" in bounded.summary
    (between,) = diagnose(metrics | {"headspace_share": 0.08})  # 5-10%: the bound stands
    assert between.expected_speedup == unbounded.expected_speedup


def test_hidden_contention_ranks_by_headspace():
    metrics = fixture("hidden_input_contention")["triggers"]
    top = diagnose(metrics)[0]
    assert top.entry_id == "hidden_input_contention"
    assert top.expected_speedup == pytest.approx(1 / (1 - 0.34))


def test_precision_remedies_keep_data_identical_and_widen_the_loss_tolerance():
    from perfloop.contracts.tolerances import LOSS_TOLERANCE

    checks = [r.verification for e in load_entries() for r in e.remedies
              if r.verification.tolerance_class == "precision"]
    assert checks, "no precision remedy in the knowledge base"
    for check in checks:
        assert check.data == "identical" and check.loss == "within_tolerance"
        assert check.loss_rtol > LOSS_TOLERANCE[1]


def test_a_codemod_offered_by_two_entries_is_one_edit_to_the_loop():
    # Memory and "tried" are per (entry, remedy): the diagnose node treats remedies making the same
    # edit as one (perfloop.agent.nodes.schedule.same_edit), so an edit is tried once per head. Sharing stays
    # deliberate: the vectoriser, for batch building that is slow (transform_hotspot), that
    # contends with the loop (hidden_input_contention) or that is the collate (slow_collate); the
    # sample cache, for every per-sample cost that depends on the index alone; and reading
    # .tolist() lists as arrays, in a conversion or a collate; moving what a loop of the hot function recomputes,
    # remembering a pure helper's results per argument, and answering `.index(v)` on a fixed list from a dict,
    # wherever per-sample or collate work is slow.
    from perfloop.agent.nodes.schedule import same_edit
    from perfloop.agent.state import RemedyRef

    owners: dict[str, list[str]] = {}
    for e in load_entries():
        for r in e.remedies:
            if r.kind == "codemod":
                owners.setdefault(f"{r.codemod} {sorted(r.params.items())}", []).append(f"{e.id}/{r.id}")
    shared = {key: refs for key, refs in owners.items() if len(refs) > 1}
    assert shared == {"vectorize_hot_function [('exact', True), ('round_trip', True)]":
                      ["hidden_input_contention/vectorize_batch_building", "slow_collate/vectorize_collate_loops",
                       "transform_hotspot/vectorize_loops"],
                      "tensor_of_lists []": ["copy_heavy_conversion/lists_to_tensor",
                                             "slow_collate/collate_lists_to_tensor"],
                      "cache_samples []": ["copy_heavy_conversion/cache_converted_samples",
                                           "decode_heavy_samples/cache_decoded_samples_per_index",
                                           "per_sample_tokenization/cache_tokenised_samples",
                                           "transform_hotspot/cache_transformed_samples"],
                      "cache_samples [('fill', 'construction')]": ["copy_heavy_conversion/precompute_converted_samples",
                                                                   "decode_heavy_samples/precompute_decoded_samples",
                                                                   "per_sample_tokenization/precompute_tokenised_samples",
                                                                   "transform_hotspot/precompute_transformed_samples"],
                      "hoist_loop_invariants []": ["decode_heavy_samples/hoist_decode_invariants",
                                                   "per_sample_tokenization/hoist_tokeniser_invariants",
                                                   "slow_collate/hoist_collate_invariants",
                                                   "transform_hotspot/hoist_transform_invariants"],
                      "memoize_pure_helper []": ["decode_heavy_samples/memoize_decode_helper",
                                                 "per_sample_tokenization/memoize_tokenizer_helper",
                                                 "slow_collate/memoize_collate_helper",
                                                 "transform_hotspot/memoize_transform_helper"],
                      "index_lookup_tables []": ["decode_heavy_samples/index_lookup_decode",
                                                 "per_sample_tokenization/index_lookup_tokenizer",
                                                 "slow_collate/index_lookup_collate",
                                                 "transform_hotspot/index_lookup_transform"]}
    for refs in shared.values():
        for ref in refs:
            entry, remedy = ref.split("/")
            assert sorted(map(str, same_edit(RemedyRef(diagnosis=entry, remedy=remedy)))) == sorted(refs)


def test_hidden_contention_offers_the_vectoriser_offline_first():
    top = diagnose(fixture("hidden_input_contention")["triggers"])[0]
    first = top.remedies[0]
    assert (first.id, first.kind, first.codemod) == ("vectorize_batch_building", "codemod", "vectorize_hot_function")
    assert first.verification.data == "identical" and first.verification.loss == "identical"
    assert [r.kind for r in top.remedies[1:]] == ["llm"]


VARIANTS = {
    "image": "    img = Image.open(self.paths[i]).convert('RGB')",
    "records": "    rec = json.loads(self.rows[i])",
    "audio": "    wav, sr = torchaudio.load(self.paths[i])",
    "text": "    ids = self.tok.encode(text.lower().split())",
    "arrays": "    x = (row - mean) / std",
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("entry_id", ENTRY_IDS)
def test_every_entry_offers_remedies_that_fit_the_kind_of_input_diagnosed(entry_id, variant):
    # A remedy that changes the data (a reduced-size image decode, with its looser tolerance) is offered only
    # for the kind of input it was written for, never for JSON records or audio.
    metrics = fixture(entry_id)["triggers"] | {"hot_function_source": VARIANTS[variant]}
    found = {d.entry_id: d for d in diagnose(metrics)}
    if entry_id not in found:
        return
    for remedy in found[entry_id].remedies:
        if remedy.verification.tolerance_class == "changes-data" and entry(entry_id).category == "input":
            assert remedy.when is not None and remedy.offered(metrics), (remedy.id, variant)
    ids = [r.id for r in found[entry_id].remedies]
    if entry_id == "decode_heavy_samples":
        assert ("decode_at_reduced_size" in ids) == (variant == "image"), ids


def test_a_remedys_variant_conditions_name_known_metrics():
    for e in load_entries():
        for r in e.remedies:
            for condition in r.when or []:
                assert condition.metric in {c.metric for c in e.symptoms.all_of + (e.symptoms.any_of or [])} | {
                    "hot_function_source", "sample_path_function"}, (e.id, r.id, condition.metric)


def test_a_hot_loop_inside_a_slow_collate_is_slow_collate_not_a_transform():
    """blind3's padded_review_collate: the collate's fill loop was the hot function (100% of batch building),
    so transform_hotspot (7.11x) outranked slow_collate (7.01x) for the same time."""
    from perfloop.contracts.metrics import transform_shares
    from perfloop.knowledge_base import diagnose

    assert transform_shares(1.0, None, 0.86, 0.9976)[0] < 0.01
    assert transform_shares(0.9, 0.9, 0.8, 0.05)[0] == 0.9  # per-sample work beside a cheap collate stays
    metrics = {"build_wait_share": 0.86, "data_wait_share": 0.9, "collate_share": 0.9976, "hot_function_share": 1.0,
               "hot_function": "PadCollator.__call__ (reviews/collate.py:10)", "collate_step_share": 0.857,
               "num_workers": 0, "cpu_count": 2, "step_ms": 50.0, "headspace_share": 0.94}
    ranked = [d.entry_id for d in diagnose(metrics)]
    assert "slow_collate" in ranked and "transform_hotspot" not in ranked, ranked
