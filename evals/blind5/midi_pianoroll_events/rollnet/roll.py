"""Event list -> notes -> piano roll (88 keys, A0 = MIDI 21)."""
from .synth import NOTE_OFF, NOTE_ON

LOWEST = 21
KEYS = 88


def events_to_notes(events):
    """Pair note-ons with their note-offs: list of (pitch, on_tick, off_tick, velocity), end tick."""
    notes = []
    active = {}
    tick = 0
    i = 0
    while i < len(events):
        delta, status, pitch, vel = events[i]
        tick += delta
        if status == NOTE_ON and vel > 0:
            if pitch in active:  # re-struck before release: close the sounding note
                on, v = active.pop(pitch)
                notes.append((pitch, on, tick, v))
            active[pitch] = (tick, vel)
        elif status == NOTE_OFF or (status == NOTE_ON and vel == 0):
            if pitch in active:
                on, v = active.pop(pitch)
                notes.append((pitch, on, tick, v))
        i += 1
    for pitch, (on, v) in active.items():
        notes.append((pitch, on, tick, v))
    return notes, tick


def render(notes, start, n_frames, transpose, ticks_per_frame):
    """Velocity roll and onset roll of frames [start, start + n_frames), as nested lists."""
    roll = [[0.0] * n_frames for _ in range(KEYS)]
    onsets = [[0.0] * n_frames for _ in range(KEYS)]
    stop = start + n_frames
    for pitch, on, off, vel in notes:
        key = pitch + transpose - LOWEST
        if key < 0 or key >= KEYS:
            continue
        f_on = on // ticks_per_frame
        f_off = max(f_on + 1, off // ticks_per_frame)
        if f_off <= start or f_on >= stop:
            continue
        row = roll[key]
        for f in range(max(f_on, start), min(f_off, stop)):
            row[f - start] = vel / 127.0
        if f_on >= start:
            onsets[key][f_on - start] = 1.0
    return roll, onsets
