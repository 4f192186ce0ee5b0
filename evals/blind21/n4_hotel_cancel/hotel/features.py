"""Per-booking features: calendar arithmetic on the stay and the guest's booking history."""
from datetime import date, timedelta

from .synthetic import DEPOSITS, HOTELS, MARKETS, MONTHS

MONTH_NUM = {name: i + 1 for i, name in enumerate(MONTHS)}
CATEGORICAL = {"hotel": HOTELS, "market_segment": MARKETS, "deposit_type": DEPOSITS}


def arrival_date(row):
    return date(int(row["arrival_date_year"]), MONTH_NUM[row["arrival_date_month"]],
                int(row["arrival_date_day_of_month"]))


def stay_calendar(row):
    arrival = arrival_date(row)
    nights = int(row["stays_in_weekend_nights"]) + int(row["stays_in_week_nights"])
    departure = arrival + timedelta(days=nights)
    booked_on = arrival - timedelta(days=int(row["lead_time"]))
    friday_or_saturday = sum(1 for k in range(nights) if (arrival + timedelta(days=k)).weekday() in (4, 5))
    iso_year, iso_week, _ = arrival.isocalendar()
    return {
        "nights": nights,
        "arrival_weekday": arrival.weekday(),
        "arrival_doy": arrival.timetuple().tm_yday,
        "iso_week": iso_week,
        "weekend_share": friday_or_saturday / nights if nights else 0.0,
        "booked_weekday": booked_on.weekday(),
        "crosses_month": int(departure.month != arrival.month),
        "crosses_year": int(departure.year != arrival.year),
        "christmas": int((arrival.month == 12 and arrival.day >= 20) or (departure.month == 1 and departure.day <= 3)),
    }


class BookingFeaturizer:
    """Turns one CSV row into numeric features, using the whole export for the guest's history."""

    def __init__(self, rows):
        self.rows = rows

    def customer_history(self, row):
        cid = row["customer_id"]
        arrival = arrival_date(row)
        previous = [r for r in self.rows if r["customer_id"] == cid and arrival_date(r) < arrival]
        if not previous:
            return {"prev_bookings": 0, "prev_cancellations": 0, "prev_cancel_rate": 0.0,
                    "days_since_last": -1, "prev_mean_lead": 0.0}
        cancels = sum(int(r["is_canceled"]) for r in previous)
        last = max(arrival_date(r) for r in previous)
        return {
            "prev_bookings": len(previous),
            "prev_cancellations": cancels,
            "prev_cancel_rate": cancels / len(previous),
            "days_since_last": (arrival - last).days,
            "prev_mean_lead": sum(int(r["lead_time"]) for r in previous) / len(previous),
        }

    def __call__(self, row):
        cal = stay_calendar(row)
        hist = self.customer_history(row)
        numeric = [
            int(row["lead_time"]) / 100.0, cal["nights"] / 7.0, cal["weekend_share"], cal["arrival_doy"] / 366.0,
            cal["iso_week"] / 53.0, cal["crosses_month"], cal["crosses_year"], cal["christmas"],
            int(row["adults"]), int(row["children"]), float(row["adr"]) / 100.0,
            min(hist["prev_bookings"], 20) / 20.0, hist["prev_cancellations"] / 10.0, hist["prev_cancel_rate"],
            hist["days_since_last"] / 365.0, hist["prev_mean_lead"] / 100.0,
        ]
        cats = [CATEGORICAL[k].index(row[k]) for k in sorted(CATEGORICAL)] + \
            [cal["arrival_weekday"], cal["booked_weekday"], MONTH_NUM[row["arrival_date_month"]] - 1]
        return numeric, cats
