"""Synthetic protein backbones (N, CA, C per residue) built by NeRF from secondary-structure
segments: helices and strands get their canonical phi/psi, loops wander."""
import numpy as np

SS = ("H", "E", "C")
IDEAL = {"H": (-57.0, -47.0), "E": (-120.0, 130.0)}
BOND = {"N-CA": 1.458, "CA-C": 1.525, "C-N": 1.329}
ANGLE = {"N-CA-C": 111.2, "CA-C-N": 116.2, "C-N-CA": 121.7}


def _place(a, b, c, length, angle_deg, torsion_deg):
    """NeRF for a batch of chains: a, b, c (P, 3) -> d (P, 3)."""
    theta = np.radians(angle_deg)
    chi = np.radians(torsion_deg)
    bc = c - b
    bc /= np.linalg.norm(bc, axis=1, keepdims=True)
    n = np.cross(b - a, bc)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    m = np.cross(n, bc)
    d2 = np.stack([-length * np.cos(theta) * np.ones_like(chi),
                   length * np.sin(theta) * np.cos(chi),
                   length * np.sin(theta) * np.sin(chi)], 1)
    return c + d2[:, :1] * bc + d2[:, 1:2] * m + d2[:, 2:3] * n


def build_chains(n_chains, n_res, rng):
    labels = np.full((n_chains, n_res), 2, np.int64)
    phi = rng.uniform(-160, -50, (n_chains, n_res))
    psi = rng.uniform(-60, 170, (n_chains, n_res))
    for p in range(n_chains):
        i = 0
        while i < n_res:
            kind = rng.choice(3, p=[0.4, 0.3, 0.3])
            seg = int(rng.integers(4, 18) if kind < 2 else rng.integers(3, 10))
            if kind < 2:
                ph, ps = IDEAL[SS[kind]]
                phi[p, i:i + seg] = ph + rng.normal(0, 6, min(seg, n_res - i))
                psi[p, i:i + seg] = ps + rng.normal(0, 6, min(seg, n_res - i))
            labels[p, i:i + seg] = kind
            i += seg
    omega = 180.0 + rng.normal(0, 4, (n_chains, n_res))
    xyz = np.zeros((n_chains, n_res, 3, 3))
    xyz[:, 0, 0] = [0.0, 1.458, 0.0]
    xyz[:, 0, 1] = [0.0, 0.0, 0.0]
    xyz[:, 0, 2] = [1.525 * np.sin(np.radians(111.2)), 1.525 * np.cos(np.radians(111.2)), 0.0]
    for i in range(1, n_res):
        n_at = _place(xyz[:, i - 1, 0], xyz[:, i - 1, 1], xyz[:, i - 1, 2], BOND["C-N"], ANGLE["CA-C-N"], psi[:, i - 1])
        ca = _place(xyz[:, i - 1, 1], xyz[:, i - 1, 2], n_at, BOND["N-CA"], ANGLE["C-N-CA"], omega[:, i - 1])
        c = _place(xyz[:, i - 1, 2], n_at, ca, BOND["CA-C"], ANGLE["N-CA-C"], phi[:, i])
        xyz[:, i, 0], xyz[:, i, 1], xyz[:, i, 2] = n_at, ca, c
    return xyz.astype(np.float32), labels


def make_fragments(n_frag, min_len, max_len, seed):
    rng = np.random.default_rng(seed)
    xyz, labels = build_chains(24, 400, rng)
    frags = []
    for _ in range(n_frag):
        L = int(rng.integers(min_len, max_len + 1))
        p = int(rng.integers(0, xyz.shape[0]))
        s = int(rng.integers(0, xyz.shape[1] - L))
        frags.append((xyz[p, s:s + L].copy(), labels[p, s:s + L].copy()))
    return frags
