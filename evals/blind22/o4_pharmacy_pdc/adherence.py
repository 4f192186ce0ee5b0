"""Proportion of days covered (PDC), Pharmacy Quality Alliance style."""
import datetime as dt


def covered_days(fills, window_start, window_end):
    """fills: [(fill_date, days_supply)] for one drug class. When a refill arrives while the previous
    supply is still on hand, its days start the day after that supply runs out (carry forward)."""
    covered = set()
    next_free = None
    for fill_date, supply in sorted(fills):
        begin = fill_date if next_free is None or fill_date >= next_free else next_free
        for k in range(supply):
            day = begin + dt.timedelta(days=k)
            if window_start <= day <= window_end:
                covered.add(day)
        next_free = begin + dt.timedelta(days=supply)
    return covered


def proportion_of_days_covered(fills, measurement_start, measurement_end):
    """PDC over the treatment period: index date (first fill in the period) .. end of period."""
    in_period = [(d, s) for d, s in fills if measurement_start <= d <= measurement_end]
    if not in_period:
        return 0.0, 0
    index_date = min(d for d, _ in in_period)
    days = covered_days(fills, index_date, measurement_end)
    period = (measurement_end - index_date).days + 1
    return len(days) / period, period
