"""Effective-dated exchange rates, as published in a daily reference-rate CSV."""
import csv
import io
from bisect import bisect_right
from datetime import date
from decimal import Decimal


class CurrencyTable:
    def __init__(self, base="USD"):
        self.base = base
        self._dates = {}   # currency -> sorted list of effective dates
        self._rates = {}   # currency -> rates aligned with _dates (units of base per unit)

    @classmethod
    def from_csv(cls, text, base="USD"):
        table = cls(base)
        rows = sorted(csv.DictReader(io.StringIO(text)), key=lambda r: (r["currency"], r["date"]))
        for row in rows:
            table._dates.setdefault(row["currency"], []).append(date.fromisoformat(row["date"]))
            table._rates.setdefault(row["currency"], []).append(Decimal(row["rate"]))
        return table

    def rate(self, currency, on):
        if currency == self.base:
            return Decimal(1)
        dates = self._dates[currency]
        i = bisect_right(dates, on) - 1
        if i < 0:  # before the first publication: use the earliest rate
            i = 0
        return self._rates[currency][i]
