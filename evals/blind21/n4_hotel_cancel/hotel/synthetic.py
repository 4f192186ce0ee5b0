"""A synthetic hotel-bookings export with the columns of the public hotel demand data set."""
import csv
import io
import random

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
MARKETS = ["Online TA", "Offline TA/TO", "Groups", "Direct", "Corporate", "Complementary", "Aviation"]
DEPOSITS = ["No Deposit", "Non Refund", "Refundable"]
HOTELS = ["City Hotel", "Resort Hotel"]
COLUMNS = ["booking_id", "customer_id", "hotel", "is_canceled", "lead_time", "arrival_date_year",
           "arrival_date_month", "arrival_date_day_of_month", "stays_in_weekend_nights", "stays_in_week_nights",
           "adults", "children", "market_segment", "deposit_type", "adr"]
DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def export_csv(n_bookings, n_customers, seed):
    """Return the bookings as CSV text (what a PMS export would hand us)."""
    rng = random.Random(seed)
    loyalty = [rng.random() for _ in range(n_customers)]
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(COLUMNS)
    for b in range(n_bookings):
        cust = rng.randrange(n_customers)
        year = rng.choice([2015, 2016, 2017])
        month = rng.randrange(12)
        day = rng.randint(1, DAYS_IN_MONTH[month])
        lead = int(rng.expovariate(1 / 90.0))
        market = rng.choice(MARKETS)
        deposit = rng.choices(DEPOSITS, weights=[0.85, 0.12, 0.03])[0]
        p_cancel = 0.15 + 0.3 * (deposit == "Non Refund") + 0.2 * min(lead / 300.0, 1.0) \
            - 0.1 * loyalty[cust] + 0.05 * (market == "Groups")
        writer.writerow([b, cust, rng.choice(HOTELS), int(rng.random() < p_cancel), lead, year, MONTHS[month], day,
                         rng.randint(0, 2), rng.randint(0, 5), rng.randint(1, 3), rng.choice([0, 0, 0, 1, 2]),
                         market, deposit, f"{rng.uniform(40, 250):.2f}"])
    return buf.getvalue()


def load_bookings(text):
    return list(csv.DictReader(io.StringIO(text)))
