"""US EPA-style AQI: averaging periods, truncation, piecewise-linear breakpoints, categories."""
import math

POLLUTANTS = ("pm25", "pm10", "o3", "co", "no2")

# (C_lo, C_hi, I_lo, I_hi) in the reporting unit of each pollutant
BREAKPOINTS = {
    "pm25": [(0.0, 9.0, 0, 50), (9.1, 35.4, 51, 100), (35.5, 55.4, 101, 150), (55.5, 125.4, 151, 200),
             (125.5, 225.4, 201, 300), (225.5, 325.4, 301, 500)],
    "pm10": [(0, 54, 0, 50), (55, 154, 51, 100), (155, 254, 101, 150), (255, 354, 151, 200),
             (355, 424, 201, 300), (425, 604, 301, 500)],
    "o3": [(0.000, 0.054, 0, 50), (0.055, 0.070, 51, 100), (0.071, 0.085, 101, 150),
           (0.086, 0.105, 151, 200), (0.106, 0.200, 201, 300)],
    "co": [(0.0, 4.4, 0, 50), (4.5, 9.4, 51, 100), (9.5, 12.4, 101, 150), (12.5, 15.4, 151, 200),
           (15.5, 30.4, 201, 300), (30.5, 50.4, 301, 500)],
    "no2": [(0, 53, 0, 50), (54, 100, 51, 100), (101, 360, 101, 150), (361, 649, 151, 200),
            (650, 1249, 201, 300), (1250, 2049, 301, 500)],
}
# averaging window in hours and the minimum number of valid hours it needs
AVERAGING = {"pm25": (24, 18), "pm10": (24, 18), "o3": (8, 6), "co": (8, 6), "no2": (1, 1)}
# decimals each concentration is truncated to before the table lookup
TRUNCATE = {"pm25": 1, "pm10": 0, "o3": 3, "co": 1, "no2": 0}
CATEGORIES = [(50, "good"), (100, "moderate"), (150, "unhealthy_sensitive"), (200, "unhealthy"),
              (300, "very_unhealthy"), (500, "hazardous")]


def truncate(value, decimals):
    scale = 10 ** decimals
    return math.floor(value * scale) / scale


def sub_index(pollutant, concentration):
    """Piecewise-linear AQI of one pollutant; None if there is no concentration."""
    if concentration is None:
        return None
    c = truncate(concentration, TRUNCATE[pollutant])
    table = BREAKPOINTS[pollutant]
    for c_lo, c_hi, i_lo, i_hi in table:
        if c_lo <= c <= c_hi:
            return round((i_hi - i_lo) / (c_hi - c_lo) * (c - c_lo) + i_lo)
    if c > table[-1][1]:
        return table[-1][3]
    # c falls in a gap between two rows after truncation (e.g. 0.0545 ppm): take the upper row
    for c_lo, c_hi, i_lo, i_hi in table:
        if c < c_lo:
            return i_lo
    return table[-1][3]


def category(aqi):
    if aqi is None:
        return -1
    for k, (upper, _) in enumerate(CATEGORIES):
        if aqi <= upper:
            return k
    return len(CATEGORIES) - 1


def rolling_mean(table, pollutant, hour):
    """Mean of the valid hourly values in the averaging window ending at ``hour``."""
    width, need = AVERAGING[pollutant]
    values = [table.get((h, pollutant)) for h in range(hour - width + 1, hour + 1)]
    present = [v for v in values if v is not None]
    if len(present) < need:
        return None
    return sum(present) / len(present)
