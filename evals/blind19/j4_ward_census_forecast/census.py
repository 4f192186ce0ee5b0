"""Ward census from an ADT log."""


def census_at(events, t, wards):
    """Patients in each ward at time t (all events with time <= t applied, in log order)."""
    location = {}
    for ev in events:
        if ev.time > t:
            break
        if ev.kind == "admit" or ev.kind == "transfer":
            location[ev.patient] = ev.ward_to
        elif ev.kind == "discharge":
            location.pop(ev.patient, None)
    counts = dict.fromkeys(wards, 0)
    for ward in location.values():
        counts[ward] += 1
    return [counts[w] for w in wards]


def hourly_census(events, start_hour, end_hour, wards):
    """Census at each whole hour in [start_hour, end_hour)."""
    return [census_at(events, float(h), wards) for h in range(start_hour, end_hour)]
