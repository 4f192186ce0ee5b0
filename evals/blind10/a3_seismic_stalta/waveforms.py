"""Synthetic three-component event records, stored as a packed header plus zlib'd int32 counts."""
import struct
import zlib

import numpy as np

RECORD_HEADER = struct.Struct("<5s2s3sdfIH")  # station, network, band+instrument+'?', starttime, rate, npts, ncomp
CHANNEL_HEADER = struct.Struct("<1sfI")        # component, calib (nm/s per count), compressed length
EVENT_TYPES = ("local", "regional", "teleseismic")


def synth_event(rng, npts, rate):
    """P and S arrivals on top of microseismic noise; frequency content by event type."""
    kind = int(rng.integers(len(EVENT_TYPES)))
    t = np.arange(npts) / rate
    onset = rng.uniform(8.0, npts / rate - 14.0)
    f0 = (8.0, 4.0, 1.5)[kind] * rng.uniform(0.8, 1.25)
    sp = (2.5, 9.0, 0.0)[kind] * rng.uniform(0.8, 1.2)
    amp = 10 ** rng.uniform(2.3, 3.6)
    comps = []
    for c in range(3):
        noise = np.cumsum(rng.normal(0.0, 1.0, npts)) * 0.05 + rng.normal(0.0, 30.0, npts)
        noise += 40.0 * np.sin(2 * np.pi * rng.uniform(0.15, 0.3) * t + rng.uniform(0, 6.28))
        sig = np.zeros(npts)
        for arr, scale, f in ((onset, 1.0 if c == 0 else 0.4, f0), (onset + sp, 0.6 if c == 0 else 1.4, f0 * 0.7)):
            if sp == 0.0 and arr != onset:
                continue
            tt = t - arr
            env = np.where(tt > 0, np.exp(-tt / (1.5 + 2.0 * kind)) * (1 - np.exp(-tt * 8.0)), 0.0)
            sig += scale * amp * env * np.sin(2 * np.pi * f * tt + rng.uniform(0, 6.28))
        comps.append(np.round(noise + sig + rng.normal(0, 800)).astype(np.int32))
    return comps, kind, onset


def pack_record(station, starttime, rate, comps, calibs):
    blob = [RECORD_HEADER.pack(station.encode()[:5].ljust(5), b"XX", b"HH?", starttime, rate, len(comps[0]),
                               len(comps))]
    for name, data, calib in zip("ZNE", comps, calibs):
        payload = zlib.compress(data.astype("<i4").tobytes(), 6)
        blob.append(CHANNEL_HEADER.pack(name.encode(), calib, len(payload)))
        blob.append(payload)
    return b"".join(blob)


def unpack_record(blob):
    station, net, cha, starttime, rate, npts, ncomp = RECORD_HEADER.unpack_from(blob, 0)
    pos = RECORD_HEADER.size
    traces = {}
    for _ in range(ncomp):
        comp, calib, nbytes = CHANNEL_HEADER.unpack_from(blob, pos)
        pos += CHANNEL_HEADER.size
        counts = np.frombuffer(zlib.decompress(blob[pos:pos + nbytes]), dtype="<i4")
        pos += nbytes
        traces[comp.decode()] = (counts, calib)
    meta = {"station": station.decode().strip(), "starttime": starttime, "sampling_rate": rate, "npts": npts}
    return meta, traces


def make_catalogue(n_records, seconds, rate, seed):
    rng = np.random.default_rng(seed)
    npts = int(seconds * rate)
    stations = [f"ST{i:02d}" for i in range(12)]
    records, labels = [], []
    t0 = 1_700_000_000.0
    for i in range(n_records):
        comps, kind, onset = synth_event(rng, npts, rate)
        calibs = [float(rng.uniform(0.8, 1.2)) for _ in comps]
        records.append(pack_record(stations[i % len(stations)], t0 + 3600.0 * i, rate, comps, calibs))
        labels.append((kind, onset))
    return records, labels
