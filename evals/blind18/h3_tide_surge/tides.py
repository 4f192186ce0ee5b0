"""Harmonic tide prediction: h(t) = Z0 + sum_k f_k A_k cos(speed_k t + V0_k + u_k - g_k)."""
import math

# name: angular speed in degrees per (solar) hour
SPEEDS = {
    "M2": 28.9841042, "S2": 30.0, "N2": 28.4397295, "K2": 30.0821373, "K1": 15.0410686,
    "O1": 13.9430356, "P1": 14.9589314, "Q1": 13.3986609, "M4": 57.9682084, "MS4": 58.9841042,
    "2N2": 27.8953548, "MU2": 27.9682084, "NU2": 28.5125831, "L2": 29.5284789, "T2": 29.9589333,
    "J1": 15.5854433, "OO1": 16.1391017, "M3": 43.4761563, "MN4": 57.4238337, "M6": 86.9523127,
}
# equilibrium argument at the epoch and nodal corrections for the year (fixed for the synthetic year)
V0 = {"M2": 191.2, "S2": 0.0, "N2": 103.5, "K2": 200.1, "K1": 10.6, "O1": 180.7, "P1": 349.4, "Q1": 73.0,
      "M4": 22.4, "MS4": 191.2, "2N2": 15.8, "MU2": 351.0, "NU2": 282.9, "L2": 279.5, "T2": 357.4,
      "J1": 202.1, "OO1": 41.7, "M3": 106.8, "MN4": 294.7, "M6": 33.6}
NODAL = {"M2": (0.963, -2.1), "S2": (1.0, 0.0), "N2": (0.963, -2.1), "K2": (1.298, -17.4), "K1": (1.103, -8.6),
         "O1": (1.176, 10.1), "P1": (1.0, 0.0), "Q1": (1.176, 10.1), "M4": (0.927, -4.2), "MS4": (0.963, -2.1),
         "2N2": (0.963, -2.1), "MU2": (0.963, -2.1), "NU2": (0.963, -2.1), "L2": (1.102, -8.7), "T2": (1.0, 0.0),
         "J1": (1.153, -12.9), "OO1": (1.546, -25.3), "M3": (0.945, -3.2), "MN4": (0.927, -4.2),
         "M6": (0.893, -6.3)}


class HarmonicModel:
    """Fitted harmonic constants of one gauge (amplitudes in metres, Greenwich phase lags in degrees)."""

    def __init__(self, z0, constants):
        self.z0 = z0
        self.constants = dict(constants)  # name -> (amplitude, phase lag)

    def predict_at(self, hour):
        """Astronomical tide at `hour` hours after the epoch."""
        h = self.z0
        for name, (amp, lag) in self.constants.items():
            f, u = NODAL[name]
            arg = SPEEDS[name] * hour + V0[name] + u - lag
            h += f * amp * math.cos(math.radians(arg % 360.0))
        return h

    def predict(self, hours):
        return [self.predict_at(t) for t in hours]
