import datetime as dt
import math

from .fifo import replay

NUM_FEATURES = 13


def event_features(history, k, long_term_days):
    """Features of trade k of an account, given everything the account did up to and including it."""
    book, rec = replay(history[:k + 1], long_term_days)
    prev_day = dt.date.fromisoformat(history[k - 1]["date"]).toordinal() if k > 0 else book.last_date
    return [
        1.0 if rec.side == "BUY" else 0.0,
        1.0 if rec.side == "SELL" else 0.0,
        math.log1p(rec.quantity),
        math.log(rec.price),
        rec.short_term_gain / 1000.0,
        rec.long_term_gain / 1000.0,
        rec.holding_days_mean / 365.0,
        float(rec.lots_closed),
        book.position(rec.symbol) / 100.0,
        len(book.lots.get(rec.symbol, [])) / 10.0,
        book.unrealised(rec.symbol, rec.price) / 1000.0,
        book.realised_total / 10000.0,
        (book.last_date - prev_day) / 30.0,
    ]


def window_features(history, end, window, long_term_days):
    return [event_features(history, k, long_term_days) for k in range(end - window + 1, end + 1)]
