"""Inline SVG charts for the HTML report: stacked step ledgers, speed-up intervals, one step's Gantt chart.

Each function takes plain numbers and returns an ``<svg>`` string: no JavaScript, no
external assets, so the page works offline and prints as it shows.
"""
from __future__ import annotations

import html

from perfloop.contracts.stages import TIMED_STAGES, Stage

STAGE_COLOURS = {Stage.DATA_WAIT: "#d9534f", Stage.H2D: "#f0ad4e", Stage.FORWARD: "#337ab7",
                 Stage.BACKWARD: "#5bc0de", Stage.OPTIMIZER: "#5cb85c", Stage.OTHER: "#999999",
                 "batch_build": "#8e6bbf"}
LEDGER_STAGES: tuple[str, ...] = tuple(str(stage) for stage in Stage)
_FONT = 'font-family="system-ui,sans-serif" font-size="12"'


def _esc(value) -> str:
    return html.escape(str(value))


def _legend(stages, y: float, x0: float = 10) -> list[str]:
    out, x = [], x0
    for stage in stages:
        out.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{STAGE_COLOURS[stage]}"/>'
                   f'<text x="{x + 16}" y="{y + 10}">{_esc(stage.replace("_", " "))}</text>')
        x += 24 + 7 * len(stage)
    return out


def ledger_bars(bars: list[tuple[str, dict[str, float]]], width: int = 900) -> str:
    """Return one horizontal stacked bar per profile: the mean step split into its stages (ms)."""
    label_w, row_h, top = 170, 34, 10
    longest = max((sum(parts.values()) for _, parts in bars), default=0.0) or 1.0
    scale = (width - label_w - 90) / longest
    height = top + row_h * len(bars) + 40
    out = [f'<svg class="chart ledger" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" {_FONT} role="img" aria-label="step-time ledger per profile">']
    for row, (label, parts) in enumerate(bars):
        y = top + row * row_h
        out.append(f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{_esc(label)}</text>')
        x = float(label_w)
        for stage in LEDGER_STAGES:
            ms = parts.get(stage, 0.0)
            if ms <= 0:
                continue
            w = ms * scale
            out.append(f'<rect class="bar" x="{x:.1f}" y="{y}" width="{max(w, 0.5):.1f}" height="24" '
                       f'fill="{STAGE_COLOURS[stage]}"><title>{_esc(label)}: {_esc(stage)} {ms:.1f} ms</title></rect>')
            x += w
        out.append(f'<text x="{x + 6:.1f}" y="{y + 17}">{sum(parts.values()):.1f} ms</text>')
    shown = [stage for stage in LEDGER_STAGES if any(parts.get(stage, 0.0) > 0 for _, parts in bars)]
    out += _legend(shown, top + row_h * len(bars) + 10, label_w)
    return "".join(out) + "</svg>"


def speed_intervals(rows: list[dict], width: int = 900) -> str:
    """Return each proposal's speed-up with the interval its verdict quoted, against the noise floor it had to beat.

    A row is ``{label, speedup, ci: [low, high], confidence, threshold_pct, verdict}``; the
    interval's level (``confidence``, Bonferroni-adjusted over the sequential looks) is printed
    beside it; the shaded band is 1 ± the noise floor, the dashed line the gain required.
    """
    label_w, row_h, top = 170, 32, 26
    values = [1.0] + [v for r in rows for v in (r["ci"][0], r["ci"][1], r["speedup"], 1 - r["threshold_pct"] / 100,
                                                1 + r["threshold_pct"] / 100)]
    low, high = min(values) * 0.95, max(values) * 1.05
    plot_w = width - label_w - 150  # room on the right for each interval's level and bounds
    def x_of(v: float) -> float:
        return label_w + (v - low) / (high - low) * plot_w
    height = top + row_h * len(rows) + 20
    out = [f'<svg class="chart speed" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" {_FONT} role="img" aria-label="speed-up per proposal">']
    for row, r in enumerate(rows):
        y = top + row * row_h
        floor = r["threshold_pct"] / 100
        out.append(f'<rect class="noise" x="{x_of(1 - floor):.1f}" y="{y}" height="{row_h - 6}" '
                   f'width="{x_of(1 + floor) - x_of(1 - floor):.1f}" fill="#eee"><title>noise floor ±{r["threshold_pct"]:.1f}%'
                   f'</title></rect>')
        out.append(f'<line x1="{x_of(1 + floor):.1f}" x2="{x_of(1 + floor):.1f}" y1="{y}" y2="{y + row_h - 6}" '
                   'stroke="#888" stroke-dasharray="3,3"/>')
        colour = {"accepted": "#070", "rejected": "#a00"}.get(r["verdict"], "#a60")
        mid = y + (row_h - 6) / 2
        out.append(f'<line class="ci" x1="{x_of(r["ci"][0]):.1f}" x2="{x_of(r["ci"][1]):.1f}" y1="{mid}" y2="{mid}" '
                   f'stroke="{colour}" stroke-width="3"/>')
        out.append(f'<circle cx="{x_of(r["speedup"]):.1f}" cy="{mid}" r="5" fill="{colour}"><title>{_esc(r["label"])}: '
                   f'{r["speedup"]:.3f}x [{r["ci"][0]:.3f}, {r["ci"][1]:.3f}], needs &gt; {1 + floor:.3f}x</title></circle>')
        out.append(f'<text x="{label_w - 8}" y="{mid + 4}" text-anchor="end">{_esc(r["label"])}</text>')
        level = r.get("confidence")
        if level:
            out.append(f'<text class="level" x="{x_of(r["ci"][1]) + 6:.1f}" y="{mid + 4}">{level * 100:.1f}% '
                       f'[{r["ci"][0]:.2f}, {r["ci"][1]:.2f}]</text>')
    axis_y = top + row_h * len(rows)
    out.append(f'<line x1="{x_of(1.0):.1f}" x2="{x_of(1.0):.1f}" y1="{top - 14}" y2="{axis_y}" stroke="#333"/>'
               f'<text x="{x_of(1.0):.1f}" y="{top - 16}" text-anchor="middle">1.0x (no change)</text>')
    for tick in _ticks(low, high):
        out.append(f'<text x="{x_of(tick):.1f}" y="{axis_y + 14}" text-anchor="middle">{tick:g}x</text>')
    return "".join(out) + "</svg>"


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = next(s for s in (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 50) if span / s <= 8)
    first = (int(low / step) + 1) * step
    return [round(first + i * step, 4) for i in range(int((high - first) / step) + 1)]


def gantt_span_ms(timeline: dict) -> float:
    """The time a step's Gantt chart covers: the step, and a window one step long before it when builds show."""
    step_ms = timeline["step_ms"] or 1.0
    return 2 * step_ms if timeline.get("fetches") else step_ms


def _ms_ticks(span: float) -> float:
    return next(s for s in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
                if span / s <= 10)


def step_gantt(timeline: dict, title: str, width: int = 900, span_ms: float | None = None) -> str:
    """Return one step as a Gantt chart: a lane per main-process stage, a lane per batch-building process.

    ``timeline`` is a StepTimeline as JSON. Batch builds that began before the step are drawn
    from the left edge of a window one step long before it, so the wait they cause shows.
    ``span_ms`` (at least this chart's own span, gantt_span_ms) sets the time scale: give every
    chart of a page the same one and equal lengths are drawn equally wide. Ticks mark the ms.
    """
    step_ms = timeline["step_ms"] or 1.0
    main_pid = timeline.get("main_pid", 0)
    lanes = [str(stage) for stage in TIMED_STAGES]
    spans = timeline.get("spans", [])
    lanes = [lane for lane in lanes if lane != "h2d" or any(s["stage"] == "h2d" for s in spans)]
    builders = sorted({f["pid"] for f in timeline.get("fetches", [])}, key=lambda pid: (pid != main_pid, pid))
    label_w, lane_h, top = 170, 22, 24
    window_start = -step_ms if timeline.get("fetches") else 0.0
    span = max(span_ms or 0.0, step_ms - window_start)
    scale = (width - label_w - 20) / span
    def x_of(ms: float) -> float:
        return label_w + (min(max(ms, window_start), step_ms) - window_start) * scale
    rows = [(lane, "main: " + lane) for lane in lanes] + \
           [(pid, ("main process: batch build" if pid == main_pid else f"worker {pid}: batch build")) for pid in builders]
    height = top + lane_h * len(rows) + 34
    out = [f'<svg class="chart gantt" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" {_FONT} role="img" aria-label="{_esc(title)}">',
           f'<text x="{label_w}" y="14" font-weight="bold">{_esc(title)}</text>']
    if window_start < 0:
        out.append(f'<rect x="{label_w}" y="{top}" width="{x_of(0) - label_w:.1f}" height="{lane_h * len(rows)}" '
                   'fill="#f7f7f7"><title>before the step</title></rect>')
    for row, (key, label) in enumerate(rows):
        y = top + row * lane_h
        out.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{_esc(label)}</text>')
        if isinstance(key, str):
            items = [(s["start_ms"], s["duration_ms"], key) for s in spans if s["stage"] == key]
        else:
            items = [(f["start_ms"], f["duration_ms"], "batch_build") for f in timeline["fetches"] if f["pid"] == key]
        for start, duration, stage in items:
            x = x_of(start)
            w = max(x_of(start + duration) - x, 1.0)
            out.append(f'<rect class="span" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{lane_h - 6}" '
                       f'fill="{STAGE_COLOURS[stage]}"><title>{_esc(label)}: {start:.1f} ms +{duration:.1f} ms'
                       '</title></rect>')
    bottom = top + lane_h * len(rows)
    tick = _ms_ticks(span)
    first = -int(-window_start // tick) * tick if window_start < 0 else 0.0
    value = first
    while value <= step_ms + 1e-9:
        if value not in (0.0,) and abs(value - step_ms) > tick / 3:
            out.append(f'<line class="tick" x1="{x_of(value):.1f}" x2="{x_of(value):.1f}" y1="{bottom}" '
                       f'y2="{bottom + 4}" stroke="#555"/><text class="tick" x="{x_of(value):.1f}" y="{bottom + 26}" '
                       f'text-anchor="middle" fill="#555">{value:g}</text>')
        value += tick
    out.append(f'<line x1="{x_of(0):.1f}" x2="{x_of(0):.1f}" y1="{top}" y2="{bottom}" stroke="#333"/>'
               f'<line x1="{x_of(step_ms):.1f}" x2="{x_of(step_ms):.1f}" y1="{top}" y2="{bottom}" stroke="#333"/>'
               + (f'<text x="{x_of(0):.1f}" y="{bottom + 14}" text-anchor="middle">step start</text>'
                  f'<text x="{x_of(step_ms):.1f}" y="{bottom + 14}" text-anchor="end">{step_ms:.1f} ms</text>'
                  if x_of(step_ms) - x_of(0) > 120 else  # a short step on a shared scale: labels either side
                  f'<text x="{x_of(0) - 3:.1f}" y="{bottom + 14}" text-anchor="end">step start</text>'
                  f'<text x="{x_of(step_ms) + 3:.1f}" y="{bottom + 14}">{step_ms:.1f} ms</text>'))
    return "".join(out) + "</svg>"


def step_distribution(rows: list[tuple[str, list[float]]], width: int = 900) -> str:
    """Return one box per run: the spread of its measured steps (ms) on one axis.

    Whiskers reach the 5th and 95th percentiles, the box the quartiles, the mark the median; a
    row is ``(label, step ms of every measured step)``. Runs of different kinds (the profile's
    full run, its light runs) side by side show what the probe's full mode costs and how much
    one run's steps spread.
    """
    rows = [(label, sorted(ms)) for label, ms in rows if ms]
    label_w, row_h, top = 170, 26, 10
    high = max((ms[-1] for _, ms in rows), default=1.0) * 1.05 or 1.0
    plot_w = width - label_w - 30
    def x_of(v: float) -> float:
        return label_w + v / high * plot_w
    def q(ms: list[float], p: float) -> float:
        return ms[min(len(ms) - 1, max(0, round(p * (len(ms) - 1))))]
    height = top + row_h * len(rows) + 30
    out = [f'<svg class="chart steps" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" {_FONT} role="img" aria-label="step times per run">']
    for row, (label, ms) in enumerate(rows):
        y = top + row * row_h
        mid = y + 9
        p5, p25, p50, p75, p95 = (q(ms, p) for p in (0.05, 0.25, 0.5, 0.75, 0.95))
        out.append(f'<text x="{label_w - 8}" y="{mid + 4}" text-anchor="end">{_esc(label)}</text>'
                   f'<line x1="{x_of(p5):.1f}" x2="{x_of(p95):.1f}" y1="{mid}" y2="{mid}" stroke="#555"/>'
                   f'<rect class="box" x="{x_of(p25):.1f}" y="{y + 2}" width="{max(x_of(p75) - x_of(p25), 1):.1f}" '
                   f'height="14" fill="#cfe0f3" stroke="#337ab7"><title>{_esc(label)}: {len(ms)} steps, median '
                   f'{p50:.1f} ms, quartiles {p25:.1f}-{p75:.1f} ms, 5-95% {p5:.1f}-{p95:.1f} ms</title></rect>'
                   f'<line x1="{x_of(p50):.1f}" x2="{x_of(p50):.1f}" y1="{y + 2}" y2="{y + 16}" stroke="#113" '
                   'stroke-width="2"/>')
    axis_y = top + row_h * len(rows)
    tick = _ms_ticks(high)
    value = 0.0
    while value <= high:
        out.append(f'<text x="{x_of(value):.1f}" y="{axis_y + 14}" text-anchor="middle">{value:g}</text>')
        value += tick
    out.append(f'<text x="{label_w + plot_w:.1f}" y="{axis_y + 28}" text-anchor="end">ms per step</text>')
    return "".join(out) + "</svg>"
