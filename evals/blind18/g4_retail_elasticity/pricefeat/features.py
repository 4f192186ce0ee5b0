"""Weekly price, discount-depth, promotion and arc-elasticity features."""
import math


def weekly_features(daily_prices, daily_units, weeks):
    """daily_prices: 7*weeks (price, regular, promo) tuples; daily_units: 7*weeks ints.

    Per week: mean log price, mean discount depth, promo-day share, log(1 + units), and the
    week-over-week elasticity d log(units) / d log(price) (0 when the price did not move).
    """
    feats, prev = [], None
    for w in range(weeks):
        days = daily_prices[7 * w:7 * w + 7]
        units = sum(daily_units[7 * w:7 * w + 7])
        known = [d for d in days if d is not None]
        if not known:
            feats.append([0.0, 0.0, 0.0, math.log1p(units), 0.0])
            prev = None
            continue
        mean_price = sum(p for p, _, _ in known) / len(known)
        depth = sum(1.0 - p / r for p, r, _ in known) / len(known)
        promo_share = sum(1 for _, _, on in known if on) / 7.0
        log_p, log_u = math.log(mean_price), math.log1p(units)
        elasticity = 0.0
        if prev is not None and abs(log_p - prev[0]) > 1e-4:
            elasticity = max(-10.0, min(10.0, (log_u - prev[1]) / (log_p - prev[0])))
        feats.append([log_p, depth, promo_share, log_u / 5.0, elasticity / 5.0])
        prev = (log_p, log_u)
    return feats
