"""Synthetic MIDI tracks in four styles, as lists of (delta_ticks, status, data1, data2) events.

status: 0x90 note on (velocity 0 = note off), 0x80 note off, 0xB0 control change, 0xFF tempo meta.
"""
import random

NOTE_ON, NOTE_OFF, CONTROL, TEMPO = 0x90, 0x80, 0xB0, 0xFF
STYLES = ["chorale", "march", "waltz", "etude"]
SCALE = [0, 2, 4, 5, 7, 9, 11]


def _chord(root, rng):
    deg = rng.randrange(7)
    return [root + 12 * (o + (SCALE.index(SCALE[(deg + k) % 7]) + deg) // 7) + SCALE[(deg + k) % 7]
            for o, k in ((0, 0), (0, 2), (0, 4), (1, 0))]


def _notes(style, beats, tpb, rng):
    """(start_tick, end_tick, pitch, velocity) before event encoding."""
    root = rng.randrange(48, 60)
    out = []
    t = 0
    while t < beats * tpb:
        if style == "chorale":
            for p in _chord(root, rng):
                out.append((t, t + tpb - rng.randrange(0, 8), p, rng.randint(50, 80)))
            t += tpb
        elif style == "march":
            out.append((t, t + tpb // 2, root - 12 + rng.choice([0, 7]), rng.randint(80, 110)))
            for k in range(2):
                p = root + 12 + SCALE[rng.randrange(7)]
                out.append((t + k * tpb // 2, t + k * tpb // 2 + tpb // 5, p, rng.randint(70, 100)))
            t += tpb
        elif style == "waltz":
            chord = _chord(root, rng)
            out.append((t, t + tpb, chord[0] - 12, rng.randint(70, 95)))
            for k in (1, 2):
                for p in chord[1:3]:
                    out.append((t + k * tpb, t + k * tpb + tpb // 2, p, rng.randint(45, 70)))
            t += 3 * tpb
        else:  # etude: running sixteenths over a held bass
            chord = _chord(root, rng)
            out.append((t, t + tpb * 2, chord[0] - 12, rng.randint(60, 80)))
            for k in range(8):
                p = chord[k % 4] + 12 * (k // 4)
                s = t + k * tpb // 4
                out.append((s, s + tpb // 4 + rng.randrange(0, 6), p, rng.randint(55, 95)))
            t += 2 * tpb
    return out


def _encode(notes, rng):
    raw = []
    for start, end, pitch, vel in notes:
        raw.append((start, 1, NOTE_ON, pitch, vel))
        # half of the note-offs are written as note-on with velocity 0 (running-status style)
        raw.append((end, 0, NOTE_ON, pitch, 0) if rng.random() < 0.5 else (end, 0, NOTE_OFF, pitch, 64))
    for tick in range(0, max(n[1] for n in notes), 384):
        raw.append((tick, 2, CONTROL, 64, rng.choice([0, 127])))  # sustain pedal, ignored
    raw.append((0, 3, TEMPO, 500000 + rng.randrange(-50000, 50000), 0))
    raw.sort(key=lambda e: (e[0], e[1]))
    events, last = [], 0
    for tick, _order, status, d1, d2 in raw:
        events.append((tick - last, status, d1, d2))
        last = tick
    return events


def make_tracks(n, beats, tpb, seed):
    rng = random.Random(seed)
    tracks, labels = [], []
    for i in range(n):
        style = i % len(STYLES)
        tracks.append(_encode(_notes(STYLES[style], beats, tpb, rng), rng))
        labels.append(style)
    return tracks, labels
