"""`perfloop report`: the HTML page of a real run, rendered in headless Chromium, and of older logs."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, make_repo, perfloop

from perfloop.agent.ui.html_report import render

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
OLD_LOG = ROOT / "tests" / "data" / "audit" / "before_events.jsonl"
HEADLESS = ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--window-size=1280,2400"]


@pytest.fixture(scope="module")
def real_report(tmp_path_factory) -> Path:
    """Run the loop once on the data-waiting pipeline (one accepted change) and write its report."""
    root = tmp_path_factory.mktemp("report")
    target = make_repo(root / "repo", "waiting")
    env = {**os.environ, "PERFLOOP_HOME": str(root / "home")}
    done = perfloop("run", str(target), "--auto-approve", "--max-iters", "1", "--json", env=env)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout.splitlines()[-1])["run_id"]
    page = root / "out" / "report.html"
    page.parent.mkdir()
    report = perfloop("report", run_id, "-o", str(page), env=env)
    assert report.returncode == 0, report.stderr
    assert report.stdout.strip() == str(page)
    (root / "out" / "summary.json").write_text(done.stdout.splitlines()[-1])
    return page


def _chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *HEADLESS, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (scripts/test.sh installs Debian's "
                                             "`chromium` where apt-get can); the report was not rendered")
@pytest.mark.serial
def test_real_run_report_renders_in_chromium(real_report):
    dump = _chromium("--enable-logging=stderr", "--v=0", "--dump-dom", real_report.as_uri())
    assert dump.returncode == 0, dump.stderr
    console = [line for line in dump.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    dom = dump.stdout
    assert dom.count('class="chart ledger"') == 1 and dom.count('class="chart speed"') == 1
    assert dom.count('class="chart gantt"') == 2  # one step before and after the accepted change
    assert len(re.findall(r'<rect class="bar"', dom)) >= 8 and len(re.findall(r'<rect class="span"', dom)) >= 8
    assert re.search(r">worker \d+: batch build<", dom)  # after num_workers 0 → 2, worker lanes
    assert "ACCEPTED" in dom and "num_workers: 2" in dom and "intact" in dom
    # Headspace of both profiles, with the step each replay left.
    assert len(re.findall(r"<td>\d+\.\d ms</td><td>\d+%</td>", dom)) == 2, dom
    # What the report adds to the ledger: hot functions, each run's step spread, the workers, one Gantt scale.
    assert 'class="hot"' in dom and re.search(r"<code>\w+</code> [\w./]+\.py:\d+</td><td>\d+%</td>", dom)
    assert dom.count('class="chart steps"') == 1 and len(re.findall(r'<rect class="box"', dom)) >= 4
    assert 'class="workers"' in dom and re.search(r"<td>worker 2 \(pid \d+\)</td><td>\d+</td>", dom)
    assert len(re.findall(r'<text class="tick"', dom)) >= 4
    # Every number agrees with the summary: the result and its interval, each verdict's level, the noise floor.
    summary = json.loads((real_report.parent / "summary.json").read_text())
    low, high = summary["speedup_ci"]
    assert f"Result: {summary['speedup']:.2f}x" in dom and f"[{low:.2f}, {high:.2f}], the final check's interval" in dom
    level = re.search(r'<text class="level"[^>]*>(\d+\.\d)% \[', dom)
    assert level and "95% interval" not in dom
    assert f"{level.group(1)}% interval" in (summary["iterations"][0]["reason"] or ""), summary["iterations"][0]
    shown = dom.split("<h2>Audit records</h2>")[0]  # the raw records below hold the log as written
    assert "{config}" not in shown and "cut cut" not in shown and "none_protected" not in shown
    assert "speed: <span class=bad>FAIL" not in dom  # an interim look that asked for more pairs says undecided
    shot = real_report.parent / "report.png"
    taken = _chromium(f"--screenshot={shot}", real_report.as_uri())
    assert taken.returncode == 0 and shot.stat().st_size > 10_000, taken.stderr


@pytest.mark.serial  # its hot functions come from the stack sampler, which a second busy worker can starve; and the
# run it reads is the serial chromium test's, made once in that phase
def test_report_links_a_trace_per_profile(real_report):
    links = re.findall(r"href='([^']+\.json)'", real_report.read_text())
    assert links
    for href in links:
        assert not href.startswith(("file:", "/")), "-o writes the traces beside the page, linked relatively"
        trace = json.loads((real_report.parent / href).read_text())
        assert any(e["name"].startswith("perfloop:") for e in trace["traceEvents"])
        assert trace["otherData"]["hot_functions"], "the trace carries the profile's hot functions"


def _old_records() -> list[dict]:
    return [json.loads(line) for line in OLD_LOG.read_text().splitlines() if line]


def test_old_log_renders_without_timeline():
    page = render(_old_records(), [])
    assert 'class="chart ledger"' in page and 'class="chart speed"' in page
    assert "no timeline in this profile" in page and 'class="chart gantt"' not in page
    assert "<details>" in page and "REJECTED" in page and "<h2>Diagnoses</h2>" in page
    assert "<h3>Headspace</h3>" in page and "recorded by an older perfloop" in page


def test_side_outputs_render_when_a_verdict_has_them():
    records = _old_records()
    verdict = next(r for r in records if r["event"] == "verdict")
    verdict["data"]["verdict"]["side_outputs"] = [
        {"name": "checkpoints/model.pt", "status": "identical", "detail": "same bytes"}]
    page = render(records, ["record 3: hash mismatch"])
    assert "checkpoints/model.pt" in page and "same bytes" in page
    assert "BROKEN: record 3: hash mismatch" in page


def test_a_side_output_check_reads_as_fields_not_raw_lists():
    # The shape verify writes (perfloop.tools.check.sideoutputs.SideOutputCheck): one row per field, lists joined, none said.
    records = _old_records()
    verdict = next(r for r in records if r["event"] == "verdict")
    verdict["data"]["verdict"]["side_outputs"] = {
        "status": "same", "detail": "stdout, stderr and 1 file(s) as in the baseline", "compared": ["stdout", "stderr",
        "out/metrics.json"], "lines_compared": 120, "numbers_masked": 3, "differences": [], "declared": [],
        "not_compared": []}
    page = render(records, [])
    table = re.search(r"<th>side outputs</th>.*?</table>", page).group(0)
    assert "<b>same</b> stdout, stderr and 1 file(s)" in table and "stdout; stderr; out/metrics.json" in table
    assert "<td>lines compared</td><td>120</td>" in table and "<td>differences</td><td>none</td>" in table
    assert "[]" not in table


def test_the_report_says_the_base_moved_and_the_isolation_seen():
    records = _old_records()
    finished = next(r for r in records if r["event"] == "run_finished")["data"]["summary"]
    assert "base-moved" not in render(records, []) and "id=isolation" not in render(records, [])
    finished.update(base="a" * 40, base_moved=True, base_now="b" * 40, isolation={
        "runs": 7, "network": "cut", "memory_limit": "pss_polling", "inputs": "hash_check",
        "orphans_bound": True, "detail": {"inputs": "change check only for 1 path(s): no mount namespace"}})
    page = render(records, [])
    moved = re.search(r"<p id=base-moved[^>]*>(.*?)</p>", page).group(1)
    assert "aaaaaaaaaa" in moved and "bbbbbbbbbb" in moved and "Rebase or cherry-pick" in moved
    assert "over 7 pipeline run(s)" in page and "<b>hash_check</b>" in page and "no mount namespace" in page


def test_text_from_the_log_is_escaped_by_the_template():
    # The page is a jinja2 template with autoescape: a proposal, a reason or a patch holding markup shows it as text.
    records = _old_records()
    proposal = next(r for r in records if r["event"] == "proposal")["data"]["proposal"]
    proposal["change"] = "<script>alert('change')</script>"
    proposal["patch"] = "@@ -1 +1 @@\n-x = 1\n+x = '<script>alert(1)</script>' & \"y\""
    next(r for r in records if r["event"] == "approval")["data"]["reason"] = "<img src=x onerror=alert(2)>"
    verdict = next(r for r in records if r["event"] == "verdict")
    verdict["data"]["verdict"]["side_outputs"] = {"status": "same", "detail": "</table>", "compared": ["<b>out</b>"],
                                                  "lines_compared": 1, "differences": []}
    page = render(records, ["record <3> & more"], [("profile <1>", "trace'.json")])
    assert "<script>" not in page and "<img" not in page and "<b>out</b>" not in page
    assert "&lt;script&gt;alert(&#39;change&#39;)&lt;/script&gt;" in page
    assert "<span class=add>+x = &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39; &amp; &#34;y&#34;</span>" in page
    assert "<span class=del>-x = 1</span>" in page and "<span class=hunk>@@ -1 +1 @@</span>" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page and "<b>same</b> &lt;/table&gt;</td>" in page
    assert "<td>compared</td><td>&lt;b&gt;out&lt;/b&gt;</td>" in page
    assert "BROKEN: record &lt;3&gt; &amp; more" in page and "<a href='trace&#39;.json'>profile &lt;1&gt;</a>" in page
    assert page.count('class="chart ledger"') == 1  # the charts go in as markup


def test_the_report_templates_ship_and_jinja2_waits_for_a_render():
    import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    templates = sorted((ROOT / "agent" / "ui" / "templates").iterdir())
    assert templates and all(any(t.relative_to(ROOT / "agent" / "ui").match(g) for g in globs["perfloop.agent.ui"])
                             for t in templates), "pyproject.toml's package-data must ship every report template"
    code = ("import sys; import perfloop.agent.cli, perfloop.agent.ui.html_report; "
            "print(sorted(m for m in ('jinja2', 'markupsafe') if m in sys.modules))")
    imported = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert imported.returncode == 0 and imported.stdout.strip() == "[]", imported.stderr


def test_the_report_says_what_a_busy_machine_cost_the_final_check():
    records = _old_records()
    assert "id=final-busy" not in render(records, [])
    finished = next(r for r in records if r["event"] == "run_finished")["data"]["summary"]
    finished["final_check_busy"] = "1 contaminated pair(s) left out and run again; 4 step(s) in busy intervals left out"
    page = render(records, [])
    busy = re.search(r"<p id=final-busy>(.*?)</p>", page).group(1)
    assert "1 contaminated pair(s) left out and run again" in busy and "4 step(s)" in busy
