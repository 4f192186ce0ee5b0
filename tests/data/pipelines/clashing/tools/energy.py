def frame_energy(values, width):
    """Sum of squares over a sliding window, in plain Python (deliberately slow)."""
    out = []
    for i in range(len(values)):
        total = 0.0
        for j in range(width):
            total += values[(i + j) % len(values)] ** 2
        out.append(total)
    return out
