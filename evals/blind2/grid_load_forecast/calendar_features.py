"""Calendar covariates for hourly series: cyclic hour/weekday/season, weekend and holiday flags."""
import bisect
import math
from datetime import date, datetime, timezone

# fixed-date public holidays plus a few moving ones, 2022-2024
_HOLIDAYS = [
    date(2022, 1, 1), date(2022, 4, 15), date(2022, 4, 18), date(2022, 5, 1), date(2022, 5, 26),
    date(2022, 6, 6), date(2022, 8, 15), date(2022, 11, 1), date(2022, 12, 25), date(2022, 12, 26),
    date(2023, 1, 1), date(2023, 4, 7), date(2023, 4, 10), date(2023, 5, 1), date(2023, 5, 18),
    date(2023, 5, 29), date(2023, 8, 15), date(2023, 11, 1), date(2023, 12, 25), date(2023, 12, 26),
    date(2024, 1, 1), date(2024, 3, 29), date(2024, 4, 1),
]
HOLIDAY_ORDINALS = sorted(d.toordinal() for d in _HOLIDAYS)
N_FEATURES = 9


def calendar_features(ts):
    dt = datetime.fromtimestamp(ts, tz=timezone.utc)
    hour, dow = dt.hour, dt.weekday()
    doy = dt.timetuple().tm_yday
    day = dt.date().toordinal()
    k = bisect.bisect_left(HOLIDAY_ORDINALS, day)
    is_holiday = 1.0 if k < len(HOLIDAY_ORDINALS) and HOLIDAY_ORDINALS[k] == day else 0.0
    days_to_holiday = HOLIDAY_ORDINALS[k] - day if k < len(HOLIDAY_ORDINALS) else 365
    return [
        math.sin(2 * math.pi * hour / 24), math.cos(2 * math.pi * hour / 24),
        math.sin(2 * math.pi * dow / 7), math.cos(2 * math.pi * dow / 7),
        math.sin(2 * math.pi * doy / 365.25), math.cos(2 * math.pi * doy / 365.25),
        1.0 if dow >= 5 else 0.0, is_holiday, min(days_to_holiday, 14) / 14.0,
    ]
