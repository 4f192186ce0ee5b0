"""Synthetic play-by-play feeds: one CSV text line per event, like a scraped box-score feed.

    period,clock,team,event,points,score
    1,11:42,HOME,made_2pt,2,2-0
"""
import numpy as np

EVENTS = ["made_2pt", "made_3pt", "miss_2pt", "miss_3pt", "free_throw_made", "free_throw_miss",
          "def_rebound", "off_rebound", "turnover", "foul", "timeout", "substitution"]
_POINTS = {"made_2pt": 2, "made_3pt": 3, "free_throw_made": 1}
_P = np.array([0.16, 0.07, 0.16, 0.11, 0.05, 0.02, 0.16, 0.05, 0.06, 0.08, 0.02, 0.06])


def simulate_game(rng, n_events, periods, period_seconds):
    strength = rng.normal(0.0, 0.06)  # home advantage / team quality
    kinds = rng.choice(len(EVENTS), size=n_events, p=_P / _P.sum())
    teams = np.where(rng.random(n_events) < 0.5 + strength, "HOME", "AWAY")
    per_period = n_events // periods
    lines = []
    home = away = 0
    for p in range(periods):
        chunk = per_period if p < periods - 1 else n_events - per_period * (periods - 1)
        clocks = np.sort(rng.integers(0, period_seconds, size=chunk))[::-1]
        for k in range(chunk):
            i = p * per_period + k
            event = EVENTS[kinds[i]]
            team = str(teams[i])
            pts = _POINTS.get(event, 0)
            if team == "HOME":
                home += pts
            else:
                away += pts
            secs = int(clocks[k])
            lines.append(f"{p + 1},{secs // 60:02d}:{secs % 60:02d},{team},{event},{pts},{home}-{away}")
    return lines
