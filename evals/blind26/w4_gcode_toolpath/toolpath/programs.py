"""Synthetic 2.5D milling programs (Fanuc/Grbl-flavoured G-code)."""
import math
import random


def _fmt(v):
    return f"{v:.3f}".rstrip("0").rstrip(".")


def make_program(rng, min_moves, max_moves):
    lines = ["%", f"O{rng.randint(1000, 9999)} (POCKET {rng.randint(1, 99)})", "G21 G90 G17 G94", "G54"]
    n = 10
    x = y = 0.0
    z = 5.0
    tool = rng.randint(1, 8)
    lines.append(f"N{n} T{tool} M06 ; tool {tool}")
    lines.append(f"S{rng.choice([8000, 12000, 18000, 24000])} M03")
    feed = rng.choice([300, 600, 900, 1200, 1800])
    for _ in range(rng.randint(min_moves, max_moves)):
        n += 10
        r = rng.random()
        if r < 0.15:
            x, y = rng.uniform(0, 200), rng.uniform(0, 150)
            lines.append(f"N{n} G00 X{_fmt(x)} Y{_fmt(y)} Z{_fmt(5.0)}")
            z = 5.0
        elif r < 0.25:
            z = -rng.uniform(0.5, 6.0)
            lines.append(f"N{n} G01 Z{_fmt(z)} F{feed // 3}")
        elif r < 0.7:
            x, y = x + rng.uniform(-30, 30), y + rng.uniform(-30, 30)
            if rng.random() < 0.3:
                feed = rng.choice([300, 600, 900, 1200, 1800])
                lines.append(f"N{n} G01 X{_fmt(x)} Y{_fmt(y)} F{feed}")
            else:
                lines.append(f"N{n} X{_fmt(x)} Y{_fmt(y)}")
        elif r < 0.95:
            rad = rng.uniform(2, 25)
            ang = rng.uniform(0, 2 * math.pi)
            i, j = rad * math.cos(ang), rad * math.sin(ang)
            sweep = rng.uniform(0.3, 3.0) * (1 if rng.random() < 0.5 else -1)
            cx, cy = x + i, y + j
            a1 = math.atan2(y - cy, x - cx) + sweep
            x, y = cx + rad * math.cos(a1), cy + rad * math.sin(a1)
            code = "G03" if sweep > 0 else "G02"
            lines.append(f"N{n} {code} X{_fmt(x)} Y{_fmt(y)} I{_fmt(i)} J{_fmt(j)}")
        else:
            lines.append(f"(CHECK DEPTH {rng.randint(1, 9)})")
            lines.append(f"N{n} G04 P{_fmt(rng.uniform(0.1, 1.5))}")
    lines += [f"N{n + 10} G00 Z25.", "M05", "M30", "%"]
    return "\n".join(lines) + "\n"


def make_programs(count, min_moves, max_moves, seed):
    rng = random.Random(seed)
    return [make_program(rng, min_moves, max_moves) for _ in range(count)]
