import math

TWO_PI = 2.0 * math.pi


def delta_phi(a, b):
    d = a - b
    while d > math.pi:
        d -= TWO_PI
    while d <= -math.pi:
        d += TWO_PI
    return d


def jet_axis(pt, eta, phi):
    """pt-weighted axis; phi is averaged relative to the hardest constituent to survive the wrap."""
    lead = max(range(len(pt)), key=lambda i: pt[i])
    total = sum(pt)
    eta_c = sum(p * e for p, e in zip(pt, eta)) / total
    dphi_c = sum(p * delta_phi(f, phi[lead]) for p, f in zip(pt, phi)) / total
    return eta_c, delta_phi(phi[lead] + dphi_c, 0.0), total


def delta_r(x1, y1, x2, y2):
    dx = x1 - x2
    dy = y1 - y2
    return math.sqrt(dx * dx + dy * dy)
