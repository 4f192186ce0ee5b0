"""G-code interpreter: modal state machine -> toolpath segments -> cycle-time estimate."""
import math
import re

_WORD = re.compile(r"([A-Z])\s*([-+]?\d*\.?\d+)")
_PAREN = re.compile(r"\([^)]*\)")

RAPID, LINEAR, ARC_CW, ARC_CCW, DWELL, TOOL = range(6)


def strip_comment(line):
    line = _PAREN.sub("", line)
    return line.split(";", 1)[0].strip().upper()


def interpret(program, machine):
    """Return (segments, total_time_s). A segment: (kind, dx, dy, dz, length_mm, time_s)."""
    x = y = z = 0.0
    motion = RAPID
    feed = 0.0
    absolute = True
    rapid = machine["rapid_mm_per_min"]
    segs = []
    total = 0.0
    for raw in program.splitlines():
        line = strip_comment(raw)
        if not line or line == "%":
            continue
        words = [(letter, float(value)) for letter, value in _WORD.findall(line)]
        codes = {letter: value for letter, value in words}
        gs = [v for letter, v in words if letter == "G"]
        for g in gs:
            if g in (0, 1, 2, 3):
                motion = int(g)
            elif g == 90:
                absolute = True
            elif g == 91:
                absolute = False
        if "F" in codes:
            feed = codes["F"]
        if 4 in gs:
            t = codes.get("P", 0.0)
            segs.append((DWELL, 0.0, 0.0, 0.0, 0.0, t))
            total += t
            continue
        if codes.get("M") == 6:
            t = machine["tool_change_s"]
            segs.append((TOOL, 0.0, 0.0, 0.0, 0.0, t))
            total += t
            continue
        if not any(k in codes for k in "XYZ"):
            continue
        nx = codes.get("X", x if absolute else 0.0) + (0.0 if absolute else x)
        ny = codes.get("Y", y if absolute else 0.0) + (0.0 if absolute else y)
        nz = codes.get("Z", z if absolute else 0.0) + (0.0 if absolute else z)
        dx, dy, dz = nx - x, ny - y, nz - z
        if motion in (2, 3):
            cx, cy = x + codes.get("I", 0.0), y + codes.get("J", 0.0)
            r = math.hypot(x - cx, y - cy)
            a0 = math.atan2(y - cy, x - cx)
            a1 = math.atan2(ny - cy, nx - cx)
            sweep = a1 - a0
            if motion == 3 and sweep <= 0:
                sweep += 2 * math.pi
            elif motion == 2 and sweep >= 0:
                sweep -= 2 * math.pi
            length = math.hypot(abs(sweep) * r, dz)
            kind = ARC_CCW if motion == 3 else ARC_CW
        else:
            length = math.sqrt(dx * dx + dy * dy + dz * dz)
            kind = RAPID if motion == 0 else LINEAR
        rate = rapid if motion == 0 else max(feed, 1.0)
        t = length / rate * 60.0 + machine["accel_penalty_s"]
        segs.append((kind, dx, dy, dz, length, t))
        total += t
        x, y, z = nx, ny, nz
    return segs, total
