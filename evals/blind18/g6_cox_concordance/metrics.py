"""Survival metrics in plain Python: Harrell's C, Breslow baseline hazard, IPCW Brier score."""
import math


def harrell_c(time, event, risk):
    """Harrell's concordance: pairs (i, j) with event_i and time_j > time_i; risk ties count one half."""
    concordant = tied = comparable = 0
    for i in range(len(time)):
        if not event[i]:
            continue
        for j in range(len(time)):
            if time[j] > time[i]:
                comparable += 1
                if risk[i] > risk[j]:
                    concordant += 1
                elif risk[i] == risk[j]:
                    tied += 1
    return (concordant + 0.5 * tied) / comparable if comparable else float("nan")


def breslow_cumhazard(time, event, exp_risk):
    """-> (event_times ascending, H0 at each): H0(t) = sum_{t_k <= t} d_k / sum_{time_j >= t_k} exp(r_j)."""
    event_times = sorted({t for t, e in zip(time, event) if e})
    out, cum = [], 0.0
    for t in event_times:
        d = sum(1 for ti, ei in zip(time, event) if ei and ti == t)
        denom = sum(er for er, ti in zip(exp_risk, time) if ti >= t)
        cum += d / denom
        out.append(cum)
    return event_times, out


def step_value(xs, ys, x, default=0.0, left=False):
    """Right-continuous step function: ys of the last xs <= x (of the last xs < x when left=True)."""
    value = default
    for xi, yi in zip(xs, ys):
        if xi > x or (left and xi == x):
            break
        value = yi
    return value


def censoring_km(time, event):
    """Kaplan-Meier curve of the censoring distribution G: (distinct times, G just after each)."""
    times, values, g = [], [], 1.0
    for s in sorted(set(time)):
        censored = sum(1 for ti, ei in zip(time, event) if ti == s and not ei)
        if censored:
            at_risk = sum(1 for ti in time if ti >= s)
            g *= 1.0 - censored / at_risk
        times.append(s)
        values.append(g)
    return times, values


def brier_ipcw(time, event, exp_risk, event_times, cumhaz, t):
    """Graf et al. time-dependent Brier score at t with inverse-probability-of-censoring weights."""
    h0 = step_value(event_times, cumhaz, t)
    km_times, km_values = censoring_km(time, event)
    g_t = step_value(km_times, km_values, t, default=1.0)
    total = 0.0
    for ti, ei, er in zip(time, event, exp_risk):
        surv = math.exp(-h0 * er)
        if ti <= t and ei:
            g = step_value(km_times, km_values, ti, default=1.0, left=True)
            if g > 0:
                total += surv * surv / g
        elif ti > t:
            total += (1.0 - surv) * (1.0 - surv) / g_t
    return total / len(time)
