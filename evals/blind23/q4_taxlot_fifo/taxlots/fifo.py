"""FIFO tax-lot accounting: sells consume the oldest open buy lots of the same symbol first."""
import datetime as dt
from dataclasses import dataclass, field


@dataclass
class Lot:
    trade_id: int
    opened: int  # date ordinal
    quantity: int
    cost_per_share: float


@dataclass
class Realisation:
    trade_id: int
    symbol: str
    side: str
    quantity: int
    price: float
    short_term_gain: float = 0.0
    long_term_gain: float = 0.0
    holding_days_mean: float = 0.0
    lots_closed: int = 0


@dataclass
class LotBook:
    long_term_days: int = 365
    lots: dict = field(default_factory=dict)       # symbol -> list[Lot], oldest first
    realised_total: float = 0.0
    last_date: int = 0

    def apply(self, trade):
        day = dt.date.fromisoformat(trade["date"]).toordinal()
        sym, qty, price = trade["symbol"], trade["quantity"], trade["price"]
        fee = trade["commission"]
        self.last_date = day
        book = self.lots.setdefault(sym, [])
        rec = Realisation(trade["trade_id"], sym, trade["side"], qty, price)
        if trade["side"] == "BUY":
            book.append(Lot(trade["trade_id"], day, qty, (qty * price + fee) / qty))
            return rec
        remaining = qty
        proceeds_per_share = (qty * price - fee) / qty
        held_weighted = 0
        while remaining > 0:
            lot = book[0]
            take = min(remaining, lot.quantity)
            gain = take * (proceeds_per_share - lot.cost_per_share)
            days = day - lot.opened
            if days > self.long_term_days:
                rec.long_term_gain += gain
            else:
                rec.short_term_gain += gain
            held_weighted += take * days
            lot.quantity -= take
            remaining -= take
            if lot.quantity == 0:
                book.pop(0)
                rec.lots_closed += 1
        rec.holding_days_mean = held_weighted / qty
        self.realised_total += rec.short_term_gain + rec.long_term_gain
        return rec

    def position(self, sym):
        return sum(lot.quantity for lot in self.lots.get(sym, []))

    def unrealised(self, sym, price):
        total = 0.0
        for lot in self.lots.get(sym, []):
            total += lot.quantity * (price - lot.cost_per_share)
        return total


def replay(trades, long_term_days=365):
    """Book state after applying `trades` in order, and the realisation of the last one."""
    book = LotBook(long_term_days)
    rec = None
    for t in trades:
        rec = book.apply(t)
    return book, rec
