"""Recursive technical indicators on plain Python lists (pandas-ta / TA-Lib conventions).

All filters are causal: the value at bar t only depends on bars 0..t.
"""


def ema(values, span):
    """Exponential moving average, alpha = 2 / (span + 1), seeded with the first value."""
    alpha = 2.0 / (span + 1.0)
    out = []
    prev = None
    for v in values:
        prev = v if prev is None else alpha * v + (1.0 - alpha) * prev
        out.append(prev)
    return out


def wilder_rsi(closes, period=14):
    """Wilder's RSI: simple average of the first `period` gains/losses, then RMA smoothing."""
    n = len(closes)
    out = [50.0] * n
    if n <= period:
        return out
    gain_sum = 0.0
    loss_sum = 0.0
    for i in range(1, period + 1):
        change = closes[i] - closes[i - 1]
        if change > 0:
            gain_sum += change
        else:
            loss_sum -= change
    avg_gain = gain_sum / period
    avg_loss = loss_sum / period
    for i in range(period, n):
        if i > period:
            change = closes[i] - closes[i - 1]
            gain = change if change > 0 else 0.0
            loss = -change if change < 0 else 0.0
            avg_gain = (avg_gain * (period - 1) + gain) / period
            avg_loss = (avg_loss * (period - 1) + loss) / period
        if avg_loss == 0.0:
            out[i] = 100.0
        else:
            rs = avg_gain / avg_loss
            out[i] = 100.0 - 100.0 / (1.0 + rs)
    return out


def true_range(highs, lows, closes):
    tr = [highs[0] - lows[0]]
    for i in range(1, len(closes)):
        prev_close = closes[i - 1]
        tr.append(max(highs[i] - lows[i], abs(highs[i] - prev_close), abs(lows[i] - prev_close)))
    return tr


def wilder_atr(highs, lows, closes, period=14):
    tr = true_range(highs, lows, closes)
    out = []
    atr = None
    for i, value in enumerate(tr):
        if i < period:
            # warm-up: running mean of the true ranges seen so far
            atr = value if atr is None else (atr * i + value) / (i + 1)
        else:
            atr = (atr * (period - 1) + value) / period
        out.append(atr)
    return out


def macd(closes, fast=12, slow=26, signal=9):
    fast_line = ema(closes, fast)
    slow_line = ema(closes, slow)
    line = [f - s for f, s in zip(fast_line, slow_line)]
    sig = ema(line, signal)
    return line, sig
