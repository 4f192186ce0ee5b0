"""Agronomic season features from daily weather: growing degree days, frost, rain windows."""
import math


class SeasonFeatures:
    def __init__(self, s):
        self.s = s
        # hourly temperature shape between the daily min (~06:00) and max (~15:00)
        self.hour_weights = tuple(0.5 * (1.0 + math.sin(math.pi * (h - 10.5) / 12.0)) for h in range(24))
        self.size = len(s.GDD_CHECKPOINTS) + 3 + len(s.RAIN_OFFSETS) + 1

    def __call__(self, w, sow):
        s = self.s
        tmin, tmax, rain = w["tmin_c"], w["tmax_c"], w["rain_mm"]

        # growing degree days from hourly temperatures (sine day shape), capped and based
        cumulative = []
        acc = 0.0
        for d in range(sow, sow + s.SEASON_DAYS):
            lo, hi = tmin[d], tmax[d]
            day = 0.0
            for wgt in self.hour_weights:
                t = lo + (hi - lo) * wgt
                day += max(min(t, s.GDD_CAP_C) - s.GDD_BASE_C, 0.0) / 24.0
            acc += day
            cumulative.append(acc)
        gdd = [cumulative[k - 1] / 1000.0 for k in s.GDD_CHECKPOINTS]

        frost_pre = sum(1 for d in range(sow - 30, sow) if tmin[d] < s.FROST_C)
        frost_post = sum(1 for d in range(sow, sow + 60) if tmin[d] < s.FROST_C)
        heat = sum(1 for d in range(sow + 60, sow + 120) if tmax[d] > s.HEAT_C)

        windows = []
        for off in s.RAIN_OFFSETS:
            total = 0.0
            for d in range(sow + off - s.RAIN_WINDOW_HALF, sow + off + s.RAIN_WINDOW_HALF + 1):
                total += rain[d]
            windows.append(total / 50.0)

        dry = 0
        for d in range(sow, sow + s.SEASON_DAYS):
            antecedent = 0.0
            for j in range(d - s.ANTECEDENT_DAYS + 1, d + 1):
                antecedent += rain[j]
            if antecedent < s.DRY_ANTECEDENT_MM:
                dry += 1

        return gdd + [frost_pre / 10.0, frost_post / 10.0, heat / 10.0] + windows + [dry / s.SEASON_DAYS]
