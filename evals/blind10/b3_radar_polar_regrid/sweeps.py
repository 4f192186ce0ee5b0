"""Binary PPI sweeps (a simplified level-II-like message) and a synthetic archive of them."""
import struct
import zlib

import numpy as np
from torch.utils.data import Dataset, Sampler

import torch

MAGIC = b"RSWP"
HEADER = struct.Struct("<4sHHffffId")  # magic, n_rays, n_gates, elevation, first gate (m), gate spacing (m),
#                                         nyquist (m/s), site id, scan time (epoch seconds)


def encode_sweep(azimuths_deg, codes, elevation, first_gate, spacing, site, scan_time):
    n_rays, n_gates = codes.shape
    head = HEADER.pack(MAGIC, n_rays, n_gates, elevation, first_gate, spacing, 26.5, site, scan_time)
    az = np.round(np.asarray(azimuths_deg) * 100.0).astype("<u2").tobytes()
    return head + az + zlib.compress(codes.astype(np.uint8).tobytes(), 6)


def decode_sweep(blob):
    magic, n_rays, n_gates, elev, first_gate, spacing, _nyq, site, scan_time = HEADER.unpack_from(blob, 0)
    if magic != MAGIC:
        raise ValueError("not a sweep message")
    off = HEADER.size
    az = np.frombuffer(blob, dtype="<u2", count=n_rays, offset=off).astype(np.float64) / 100.0
    codes = np.frombuffer(zlib.decompress(blob[off + 2 * n_rays:]), dtype=np.uint8).reshape(n_rays, n_gates)
    return {"azimuth": az, "codes": codes, "elevation": elev, "first_gate": first_gate, "spacing": spacing,
            "site": site, "time": scan_time}


def synth_field(rng, n_rays, n_gates, spacing, first_gate, convective):
    """Reflectivity (dBZ) on the polar grid: storm cells as anisotropic Gaussians plus clutter noise."""
    az = np.radians((np.arange(n_rays) + rng.uniform(0, 1)) * 360.0 / n_rays)
    rng_m = first_gate + spacing * np.arange(n_gates)
    x = np.sin(az)[:, None] * rng_m[None, :] / 1000.0
    y = np.cos(az)[:, None] * rng_m[None, :] / 1000.0
    dbz = np.full((n_rays, n_gates), -40.0)
    n_cells = int(rng.integers(3, 8)) if convective else int(rng.integers(1, 3))
    for _ in range(n_cells):
        cx, cy = rng.uniform(-90, 90, size=2)
        size = rng.uniform(4, 12) if convective else rng.uniform(25, 60)
        peak = rng.uniform(45, 62) if convective else rng.uniform(22, 38)
        d2 = ((x - cx) ** 2 + (y - cy) ** 2 * rng.uniform(0.5, 2.0)) / size ** 2
        dbz = np.maximum(dbz, peak - 18.0 * d2)
    dbz += rng.normal(0, 2.0, dbz.shape)
    codes = np.where(dbz > -10.0, np.clip(np.round((dbz + 32.0) * 2.0), 1, 255), 0)
    return codes.astype(np.uint8)


class SweepArchive(Dataset):
    """Map-style archive of encoded sweeps from a few sites; label 1 = convective, 0 = stratiform."""

    def __init__(self, n_sweeps, n_sites, seed, transform):
        rng = np.random.default_rng(seed)
        self.blobs, self.labels, self.sites = [], [], []
        for i in range(n_sweeps):
            site = i % n_sites
            convective = bool(rng.random() < 0.5)
            n_rays = int(rng.integers(356, 366))
            spacing = float(rng.choice([250.0, 500.0]))
            n_gates = int(120000.0 / spacing)
            start = rng.uniform(0, 360)
            azimuths = (start + np.arange(n_rays) * 360.0 / n_rays + rng.normal(0, 0.12, n_rays)) % 360.0
            codes = synth_field(rng, n_rays, n_gates, spacing, 2125.0, convective)
            order = np.argsort((azimuths - start) % 360.0)
            self.blobs.append(encode_sweep(azimuths[order], codes, 0.5, 2125.0, spacing, site,
                                           1_700_000_000 + 300 * i))
            self.labels.append(int(convective))
            self.sites.append(site)
        self.transform = transform

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, idx):
        image, coverage = self.transform(decode_sweep(self.blobs[idx]))
        return image, self.labels[idx], coverage


class SiteShuffleSampler(Sampler):
    """Shuffles sites, then the sweeps of each site, so a batch mostly comes from one radar."""

    def __init__(self, sites, seed):
        self.by_site = {}
        for idx, site in enumerate(sites):
            self.by_site.setdefault(site, []).append(idx)
        self.generator = torch.Generator().manual_seed(seed)

    def __iter__(self):
        keys = sorted(self.by_site)
        for k in torch.randperm(len(keys), generator=self.generator).tolist():
            members = self.by_site[keys[k]]
            for j in torch.randperm(len(members), generator=self.generator).tolist():
                yield members[j]

    def __len__(self):
        return sum(len(v) for v in self.by_site.values())
