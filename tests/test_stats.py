"""The speed decision: interval and noise floor."""
import pytest

from tools.stats import RunSteps, check_speed, noise_pct, steps_ratio_ci


def runs(*throughputs: float, jitter: float = 0.02) -> list[RunSteps]:
    """Runs of 20 steps of 10 samples whose mean throughput is each given value (steps vary ±jitter)."""
    out = []
    for value in throughputs:
        base_ms = 10 / value * 1000
        out.append(RunSteps(step_ms=[base_ms * (1 + jitter * ((i % 5) - 2) / 2) for i in range(20)],
                            samples=[10] * 20))
    return out


def test_clear_gain_passes():
    result = check_speed(runs(100, 102, 98), runs(180, 185, 178), profile_noise_pct=4.0, min_gain_pct=5.0)
    assert result.passed and result.speedup == pytest.approx(180 / 100, rel=0.01)
    assert result.ci[0] > 1.0


def test_no_gain_fails_on_interval():
    result = check_speed(runs(100, 110, 95), runs(101, 108, 97), profile_noise_pct=0.0, min_gain_pct=5.0)
    assert not result.passed and "interval" in result.reason


def test_gain_inside_noise_floor_fails():
    result = check_speed(runs(100, 100.5, 100.2), runs(108, 108.4, 108.2), profile_noise_pct=12.0,
                         min_gain_pct=5.0)
    assert not result.passed and "noise floor 12.0%" in result.reason


def test_noisy_steps_widen_the_interval():
    steady = steps_ratio_ci(runs(100, 100, jitter=0.01), runs(110, 110, jitter=0.01))
    noisy = steps_ratio_ci(runs(100, 100, jitter=0.8), runs(110, 110, jitter=0.8))
    assert steady[0] > 1.05 and noisy[0] < steady[0] and noisy[1] > steady[1]


def test_spread_and_interval_bounds():
    assert noise_pct([90, 100, 110]) == pytest.approx(2 * 1.4826 * 10)
    assert noise_pct([5.0]) == 0.0
    low, high = steps_ratio_ci(runs(10, 10, 10, jitter=0), runs(20, 20, 20, jitter=0))
    assert low == pytest.approx(2.0) and high == pytest.approx(2.0)


def test_one_disturbed_run_neither_sets_the_floor_nor_sinks_a_real_gain():
    # Six interleaved pairs; one baseline run hit a busy neighbour and ran 35% slow.
    baseline = runs(100, 65, 101, 99, 100, 102)
    candidate = runs(130, 131, 128, 132, 129, 130)
    assert noise_pct([r.samples_per_s for r in baseline]) < 5.0
    result = check_speed(baseline, candidate, profile_noise_pct=3.0, min_gain_pct=5.0)
    assert result.passed and result.ci[0] > 1.2
