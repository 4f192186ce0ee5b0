"""Censoring-aware metrics: Kaplan-Meier of the censoring distribution, IPCW Brier score."""


def kaplan_meier_censoring(times, events):
    """G(t) = P(C > t) as a list of (time, value) steps; censorings are the 'events' here."""
    steps = []
    g = 1.0
    for t in sorted(set(times)):
        at_risk = sum(1 for x in times if x >= t)
        censored = sum(1 for x, e in zip(times, events) if x == t and e == 0)
        if at_risk > 0:
            g *= 1.0 - censored / at_risk
        steps.append((t, g))
    return steps


def step_value(steps, t, default=1.0):
    value = default
    for s, g in steps:
        if s <= t:
            value = g
        else:
            break
    return value


def brier_score(surv, times, events, t, t_index, cens):
    """Graf et al. IPCW Brier score at time t; surv[i][t_index] is S_i(t)."""
    g_t = step_value(cens, t)
    total = 0.0
    for i in range(len(times)):
        s = surv[i][t_index]
        if times[i] <= t and events[i] == 1:
            g_i = step_value(cens, times[i])
            if g_i > 0:
                total += s * s / g_i
        elif times[i] > t:
            if g_t > 0:
                total += (1.0 - s) * (1.0 - s) / g_t
    return total / len(times)


def integrated_brier_score(surv, times, events, grid):
    cens = kaplan_meier_censoring(times, events)
    scores = [brier_score(surv, times, events, t, k, cens) for k, t in enumerate(grid)]
    area = 0.0
    for k in range(len(grid) - 1):
        area += (grid[k + 1] - grid[k]) * (scores[k] + scores[k + 1]) / 2.0
    return area / (grid[-1] - grid[0])
