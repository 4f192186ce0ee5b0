"""MurmurHash3 (x86, 32-bit) in pure Python, so token ids do not depend on the `mmh3` wheel or on
PYTHONHASHSEED. Follows the reference implementation (Austin Appleby, public domain)."""

_C1 = 0xCC9E2D51
_C2 = 0x1B873593
_MASK = 0xFFFFFFFF


def _rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & _MASK


def _fmix(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h


def murmurhash3_32(key, seed=0):
    data = bytearray(key.encode("utf-8")) if isinstance(key, str) else bytearray(key)
    length = len(data)
    nblocks = length // 4
    h1 = seed & _MASK

    for i in range(nblocks):
        j = i * 4
        k1 = data[j] | (data[j + 1] << 8) | (data[j + 2] << 16) | (data[j + 3] << 24)
        k1 = (k1 * _C1) & _MASK
        k1 = _rotl32(k1, 15)
        k1 = (k1 * _C2) & _MASK
        h1 ^= k1
        h1 = _rotl32(h1, 13)
        h1 = (h1 * 5 + 0xE6546B64) & _MASK

    tail = nblocks * 4
    k1 = 0
    rem = length & 3
    if rem == 3:
        k1 ^= data[tail + 2] << 16
    if rem >= 2:
        k1 ^= data[tail + 1] << 8
    if rem >= 1:
        k1 ^= data[tail]
        k1 = (k1 * _C1) & _MASK
        k1 = _rotl32(k1, 15)
        k1 = (k1 * _C2) & _MASK
        h1 ^= k1

    h1 ^= length
    return _fmix(h1)
