"""Ball flight with bounces, observed by a noisy detector; exported as tracker CSV lines."""
import math

SHOT_TYPES = ("lob", "drive", "smash")


def simulate_clip(rng, n_frames, width, height, fps, ground_y):
    shot = int(rng.integers(0, 3))
    dt = 1.0 / fps
    g = 2400.0  # px/s^2 in image space
    x = float(rng.uniform(80, 300))
    if shot == 0:
        y, vx, vy = float(rng.uniform(450, 600)), float(rng.uniform(250, 420)), float(rng.uniform(-1300, -1000))
    elif shot == 1:
        y, vx, vy = float(rng.uniform(420, 560)), float(rng.uniform(650, 900)), float(rng.uniform(-450, -200))
    else:
        y, vx, vy = float(rng.uniform(80, 200)), float(rng.uniform(500, 750)), float(rng.uniform(300, 700))
    restitution = float(rng.uniform(0.55, 0.75))
    lines = ["frame,x,y,conf"]
    for f in range(n_frames):
        vy += g * dt
        x += vx * dt
        y += vy * dt
        if y >= ground_y:
            y = ground_y - (y - ground_y) * restitution
            vy = -vy * restitution
            vx *= 0.88
        if x > width - 20:
            x, vx = width - 20 - (x - width + 20), -vx * 0.5
        if rng.random() > 0.12:  # detector hit
            nx, ny = x + rng.normal(0, 1.6), y + rng.normal(0, 1.6)
            lines.append(f"{f},{nx:.2f},{ny:.2f},{rng.uniform(0.45, 0.99):.3f}")
        if rng.random() < 0.05:  # clutter: a head, a shoe, a line marking
            lines.append(f"{f},{rng.uniform(0, width):.2f},{rng.uniform(0, height):.2f},{rng.uniform(0.15, 0.6):.3f}")
    # exports are not always frame-sorted (multi-threaded detector)
    body = lines[1:]
    for i in range(len(body) - 1, 0, -1):
        if rng.random() < 0.08:
            j = int(rng.integers(max(0, i - 3), i + 1))
            body[i], body[j] = body[j], body[i]
    return "\n".join([lines[0]] + body) + "\n", shot


def gaussian_taps(sigma, radius):
    return [math.exp(-0.5 * (k / sigma) ** 2) for k in range(-radius, radius + 1)]
