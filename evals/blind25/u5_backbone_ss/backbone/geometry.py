"""Backbone internal coordinates on plain Python floats."""
import math

N_FEATURES = 10


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def norm(a):
    return math.sqrt(dot(a, a))


def dihedral_cos_sin(p0, p1, p2, p3):
    """(cos, sin) of the dihedral p0-p1-p2-p3, without going through atan2."""
    b1 = sub(p1, p0)
    b2 = sub(p2, p1)
    b3 = sub(p3, p2)
    n1 = cross(b1, b2)
    n2 = cross(b2, b3)
    l2 = norm(b2)
    b2u = (b2[0] / l2, b2[1] / l2, b2[2] / l2)
    m1 = cross(n1, b2u)
    x = dot(n1, n2)
    y = dot(m1, n2)
    r = math.sqrt(x * x + y * y)
    if r == 0.0:
        return 1.0, 0.0
    return x / r, -y / r


def angle_cos(a, b, c):
    u = sub(a, b)
    v = sub(c, b)
    return dot(u, v) / (norm(u) * norm(v))


def residue_features(xyz):
    """xyz: nested lists [L][3 atoms N, CA, C][3]. Returns [L][10] features:
    cos/sin phi, cos/sin psi, cos/sin omega (zeros where undefined), CA(i)-CA(i+1) / 3.8,
    cos of the N-CA-C angle, cos/sin of the CA virtual torsion CA(i-1)..CA(i+2)."""
    L = len(xyz)
    feats = []
    for i in range(L):
        n, ca, c = xyz[i]
        row = [0.0] * N_FEATURES
        if i > 0:
            row[0], row[1] = dihedral_cos_sin(xyz[i - 1][2], n, ca, c)          # phi
        if i < L - 1:
            nn_, can = xyz[i + 1][0], xyz[i + 1][1]
            row[2], row[3] = dihedral_cos_sin(n, ca, c, nn_)                   # psi
            row[4], row[5] = dihedral_cos_sin(ca, c, nn_, can)                 # omega
            row[6] = norm(sub(can, ca)) / 3.8
        row[7] = angle_cos(n, ca, c)
        if 0 < i < L - 2:
            row[8], row[9] = dihedral_cos_sin(xyz[i - 1][1], ca, xyz[i + 1][1], xyz[i + 2][1])
        feats.append(row)
    return feats
