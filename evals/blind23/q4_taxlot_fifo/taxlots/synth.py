"""Synthetic brokerage export: one JSON object per line, as a broker's CSV->JSONL dump."""
import datetime as dt
import json
import math
import random

SYMBOLS = ["AAPL", "MSFT", "AMZN", "GOOG", "NVDA", "TSLA", "JPM", "XOM", "KO", "PFE", "DIS", "INTC",
           "VTI", "SPY", "QQQ", "BND"]
START = dt.date(2017, 1, 2)
DAYS = 6 * 365


def price_table(rng):
    table = {}
    for s in SYMBOLS:
        p = rng.uniform(20, 400)
        vol = rng.uniform(0.01, 0.03)
        series = []
        for _ in range(DAYS):
            p *= math.exp(rng.gauss(0.0002, vol))
            series.append(round(p, 2))
        table[s] = series
    return table


def generate_jsonl(cfg, seed):
    """Return (lines, labels): JSON lines of all accounts' trades and each account's trading style."""
    rng = random.Random(seed)
    d = cfg["data"]
    prices = price_table(rng)
    lines, labels = [], {}
    trade_id = 0
    for a in range(d.getint("num_accounts")):
        acct = f"U{1000 + a:05d}"
        style = rng.randrange(3)  # 0 buy-and-hold, 1 active trader, 2 tax-loss harvester
        labels[acct] = style
        syms = rng.sample(SYMBOLS, d.getint("symbols_per_account"))
        n = rng.randint(d.getint("min_trades"), d.getint("max_trades"))
        gap = {0: 9.0, 1: 2.5, 2: 6.0}[style]
        day = rng.randrange(0, 120)
        position = {s: 0 for s in syms}
        for _ in range(n):
            day += 1 + int(rng.expovariate(1.0 / gap))
            if day >= DAYS:
                break
            s = rng.choice(syms)
            px = prices[s][day]
            p_sell = {0: 0.2, 1: 0.48, 2: 0.4}[style]
            if style == 2 and position[s] and px < prices[s][max(0, day - 60)]:
                p_sell = 0.8
            if position[s] > 0 and rng.random() < p_sell:
                qty = position[s] if rng.random() < 0.3 else rng.randint(1, position[s])
                side = "SELL"
                position[s] -= qty
            else:
                qty = rng.randint(1, 60)
                side = "BUY"
                position[s] += qty
            trade_id += 1
            rec = {"account": acct, "trade_id": trade_id, "date": (START + dt.timedelta(days=day)).isoformat(),
                   "symbol": s, "side": side, "quantity": qty,
                   "price": round(px * (1 + rng.uniform(-0.004, 0.004)), 2), "commission": 0.0 if style == 0 else 1.0}
            lines.append(json.dumps(rec))
    return lines, labels
