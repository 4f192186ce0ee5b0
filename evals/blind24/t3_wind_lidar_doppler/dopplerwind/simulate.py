"""Deterministic synthetic DBS scans of a coherent Doppler wind lidar.

Each scan has one averaged power spectrum per beam and range gate. The wind
profile (u, v, w) follows a power law with a veer and a low-level jet; the
aerosol return falls off with range, so far gates are noise-dominated.
"""
import numpy as np

BEAM_AZIMUTH = {"N": 0.0, "E": 90.0, "S": 180.0, "W": 270.0}


def wind_profile(heights, rng):
    u_ref = rng.uniform(2.0, 12.0)
    dir0 = rng.uniform(0.0, 2 * np.pi)
    alpha = rng.uniform(0.08, 0.3)
    veer = rng.uniform(-0.6, 0.6)
    jet_h = rng.uniform(200.0, 600.0)
    jet = rng.uniform(0.0, 5.0)
    speed = u_ref * (heights / 100.0) ** alpha + jet * np.exp(-((heights - jet_h) / 80.0) ** 2)
    direction = dir0 + veer * heights / heights.max()
    u = speed * np.sin(direction)
    v = speed * np.cos(direction)
    w = rng.normal(0.0, 0.3) * np.ones_like(heights)
    return u, v, w


def simulate_scans(cfg, seed):
    inst = cfg["instrument"]
    rng = np.random.default_rng(seed)
    g, nfft = inst["num_gates"], inst["nfft"]
    ranges = inst["first_gate_m"] + inst["gate_length_m"] * np.arange(g)
    elev = np.deg2rad(inst["elevation_deg"])
    vel_axis = (np.arange(nfft) - nfft // 2) * (2 * inst["nyquist_ms"] / nfft)
    navg = cfg["processing"]["spectral_averages"]
    scans, targets = [], []
    for _ in range(cfg["data"]["num_scans"]):
        heights = ranges * np.sin(elev)
        u, v, w = wind_profile(heights, rng)
        spectra = np.empty((len(inst["beams"]), g, nfft), dtype=np.float32)
        aerosol = rng.uniform(0.5, 3.0) * np.exp(-ranges / rng.uniform(250.0, 700.0))
        for b, beam in enumerate(inst["beams"]):
            if beam == "Z":
                vr = w
            else:
                az = np.deg2rad(BEAM_AZIMUTH[beam])
                vr = (u * np.sin(az) + v * np.cos(az)) * np.cos(elev) + w * np.sin(elev)
            width = 0.6 + 0.4 * rng.random(g)
            peak = aerosol[:, None] * np.exp(-0.5 * ((vel_axis[None, :] - vr[:, None]) / width[:, None]) ** 2)
            noise = 1.0 + 0.05 * rng.standard_normal()
            # averaged periodogram: chi-square with 2*navg degrees of freedom around the mean
            spec = (peak + noise) * rng.gamma(navg, 1.0 / navg, size=(g, nfft))
            spectra[b] = spec
        scans.append(spectra)
        targets.append(np.stack([u, v]).astype(np.float32))
    return scans, targets, vel_axis
