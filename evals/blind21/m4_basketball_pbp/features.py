"""Game state replayed from the play-by-play text, and the per-event feature vector."""
import math
from collections import deque
from datetime import datetime

FEATURE_NAMES = ["period", "secs_left_period", "secs_left_game", "log_secs_left", "score_diff",
                 "home_has_ball", "home_fouls", "away_fouls", "home_bonus", "away_bonus",
                 "home_run", "away_run", "possessions", "diff_per_sqrt_time"]


def parse_clock(clock):
    """'07:42' -> 462 seconds left in the period."""
    t = datetime.strptime(clock, "%M:%S")
    return t.minute * 60 + t.second


def parse_event(line):
    period, clock, team, event, points, score = line.split(",")
    home, away = score.split("-")
    return {"period": int(period), "secs": parse_clock(clock), "team": team, "event": event,
            "points": int(points), "home": int(home), "away": int(away)}


class GameState:
    def __init__(self, period_seconds, periods, run_window):
        self.period_seconds = period_seconds
        self.periods = periods
        self.run_window = run_window
        self.period = 1
        self.secs = period_seconds
        self.home = self.away = 0
        self.possession = None
        self.possessions = 0
        self.fouls = {"HOME": 0, "AWAY": 0}
        self.recent = deque()  # (game seconds elapsed, team, points)

    def elapsed(self):
        return (self.period - 1) * self.period_seconds + (self.period_seconds - self.secs)

    def apply(self, ev):
        if ev["period"] != self.period:
            self.period = ev["period"]
            self.fouls = {"HOME": 0, "AWAY": 0}
        self.secs = ev["secs"]
        self.home, self.away = ev["home"], ev["away"]
        team, kind = ev["team"], ev["event"]
        other = "AWAY" if team == "HOME" else "HOME"
        new_owner = self.possession
        if kind in ("made_2pt", "made_3pt", "turnover") or (kind == "free_throw_made" and ev["points"]):
            new_owner = other
        elif kind in ("def_rebound", "off_rebound"):
            new_owner = team
        elif kind == "foul":
            self.fouls[team] += 1
        if new_owner != self.possession:
            self.possessions += 1
            self.possession = new_owner
        now = self.elapsed()
        if ev["points"]:
            self.recent.append((now, team, ev["points"]))
        while self.recent and now - self.recent[0][0] > self.run_window:
            self.recent.popleft()

    def vector(self):
        secs_left_game = (self.periods - self.period) * self.period_seconds + self.secs
        diff = self.home - self.away
        home_run = sum(p for _, t, p in self.recent if t == "HOME")
        away_run = sum(p for _, t, p in self.recent if t == "AWAY")
        return [float(self.period), self.secs / self.period_seconds, secs_left_game / (self.periods * self.period_seconds),
                math.log1p(secs_left_game), diff / 10.0, 1.0 if self.possession == "HOME" else 0.0,
                self.fouls["HOME"] / 5.0, self.fouls["AWAY"] / 5.0,
                1.0 if self.fouls["AWAY"] >= 5 else 0.0, 1.0 if self.fouls["HOME"] >= 5 else 0.0,
                home_run / 10.0, away_run / 10.0, self.possessions / 100.0,
                diff / math.sqrt(secs_left_game + 1.0)]


def state_at(lines, start, upto, period_seconds, periods, run_window):
    """Replay the feed from the start of the period (line `start`) through event `upto` (inclusive).

    Possession, fouls, runs and the possession count are per period (the period opens on a jump ball
    or the alternating arrow); the score comes from the feed's running score column.
    """
    state = GameState(period_seconds, periods, run_window)
    for line in lines[start: upto + 1]:
        state.apply(parse_event(line))
    return state
