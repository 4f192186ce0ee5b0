"""G.711 mu-law codec, transcribed from the classic g711.c reference implementation."""
import numpy as np

SIGN_BIT = 0x80
QUANT_MASK = 0x0F
SEG_SHIFT = 4
SEG_MASK = 0x70
BIAS = 0x84
CLIP = 8159


def ulaw2linear(u_val):
    """One mu-law byte -> one 16-bit linear PCM value."""
    u_val = ~u_val & 0xFF
    t = ((u_val & QUANT_MASK) << 3) + BIAS
    t <<= (u_val & SEG_MASK) >> SEG_SHIFT
    return (BIAS - t) if (u_val & SIGN_BIT) else (t - BIAS)


def linear2ulaw(pcm):
    """Vectorised encoder (int16 array -> uint8 array); only used to build the corpus."""
    pcm = np.asarray(pcm, dtype=np.int32) >> 2
    mask = np.where(pcm < 0, 0x7F, 0xFF)
    pcm = np.where(pcm < 0, -pcm, pcm)
    pcm = np.minimum(pcm, CLIP) + (BIAS >> 2)
    seg = np.zeros_like(pcm)
    for s, end in enumerate((0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF)):
        seg = np.where((pcm > end) & (seg == s), s + 1, seg)
    uval = np.where(seg >= 8, 0x7F, (seg << 4) | ((pcm >> (seg + 1)) & 0xF))
    return (uval ^ mask).astype(np.uint8)


def decode(payload: bytes) -> np.ndarray:
    """mu-law bytes -> float32 waveform in [-1, 1)."""
    pcm = [ulaw2linear(b) for b in payload]
    return np.asarray(pcm, dtype=np.float32) / 32768.0
