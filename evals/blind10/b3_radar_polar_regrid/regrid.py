"""Polar-to-Cartesian regridding (nearest gate per pixel) and Z-R rain-rate conversion."""
import bisect
import math

import numpy as np


def dbz_to_rain_rate(dbz, a=200.0, b=1.6, floor_dbz=5.0, cap_dbz=55.0):
    """Marshall-Palmer Z = a R^b, in mm/h; echoes below floor_dbz are noise, above cap_dbz hail-capped."""
    if dbz < floor_dbz:
        return 0.0
    dbz = min(dbz, cap_dbz)
    z = 10.0 ** (dbz / 10.0)
    return (z / a) ** (1.0 / b)


class PolarToCartesian:
    """Nearest-gate regridding of one sweep onto a size x size grid of `resolution` metres, radar at the centre."""

    def __init__(self, size=80, resolution=3000.0, a=200.0, b=1.6):
        self.size = size
        self.resolution = resolution
        self.a, self.b = a, b

    def __call__(self, sweep, rotation=0.0):
        az = ((sweep["azimuth"] + rotation) % 360.0).tolist()
        order = sorted(range(len(az)), key=az.__getitem__)
        sorted_az = [az[i] for i in order]
        n_rays = len(order)
        codes = sweep["codes"]
        n_gates = codes.shape[1]
        first_gate, spacing = sweep["first_gate"], sweep["spacing"]
        rows = codes.tolist()
        half = self.size / 2.0
        out = []
        for iy in range(self.size):
            north = (half - iy - 0.5) * self.resolution
            line = []
            for ix in range(self.size):
                east = (ix + 0.5 - half) * self.resolution
                rng_m = math.hypot(east, north)
                gate = math.floor((rng_m - first_gate) / spacing + 0.5)
                if gate < 0 or gate >= n_gates:
                    line.append(-1.0)  # outside the sweep
                    continue
                azimuth = math.degrees(math.atan2(east, north)) % 360.0
                j = bisect.bisect_left(sorted_az, azimuth)
                lo, hi = (j - 1) % n_rays, j % n_rays
                d_lo = abs(azimuth - sorted_az[lo])
                d_hi = abs(sorted_az[hi] - azimuth)
                d_lo, d_hi = min(d_lo, 360.0 - d_lo), min(d_hi, 360.0 - d_hi)
                ray = order[hi] if d_hi < d_lo else order[lo]
                code = rows[ray][gate]
                line.append(0.0 if code == 0 else dbz_to_rain_rate(code * 0.5 - 32.0, self.a, self.b))
            out.append(line)
        return np.asarray(out, dtype=np.float64)


class RadarTransform:
    """Random rotation (azimuth offset), regrid, log-rain image and observed fraction."""

    def __init__(self, regridder, seed):
        self.regridder = regridder
        self.rng = np.random.default_rng(seed)

    def __call__(self, sweep):
        rotation = float(self.rng.uniform(0.0, 360.0))
        rain = self.regridder(sweep, rotation)
        observed = rain >= 0.0
        image = np.where(observed, np.log1p(np.where(observed, rain, 0.0)), -1.0).astype(np.float32)
        return image[None], float(observed.mean())
