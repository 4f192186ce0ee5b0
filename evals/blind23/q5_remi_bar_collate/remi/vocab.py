"""REMI-like event vocabulary: Bar, Position (16th notes), Pitch, Duration, Velocity."""
PAD, BOS, EOS, BAR = 0, 1, 2, 3
POS0, N_POS = 4, 16
PITCH0, N_PITCH = POS0 + N_POS, 88
DUR0, N_DUR = PITCH0 + N_PITCH, 32
VEL0, N_VEL = DUR0 + N_DUR, 16
VOCAB_SIZE = VEL0 + N_VEL


def is_position(tok):
    return POS0 <= tok < POS0 + N_POS
