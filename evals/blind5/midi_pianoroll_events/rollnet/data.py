from dataclasses import dataclass

import torch
from torch.utils.data import Dataset

from .roll import events_to_notes, render
from .synth import make_tracks


@dataclass
class RollBatch:
    roll: torch.Tensor      # [B, 88, T] velocities
    onsets: torch.Tensor    # [B, 88, T]
    style: torch.Tensor     # [B]
    n_notes: torch.Tensor   # [B] notes sounding in the window

    def leaves(self):
        return (self.roll, self.onsets, self.style, self.n_notes)


class MidiWindows(Dataset):
    """Random 128-frame window of a track, randomly transposed by up to +-5 semitones."""

    def __init__(self, hp):
        self.tracks, self.labels = make_tracks(hp.NUM_TRACKS, hp.BEATS_PER_TRACK, hp.TICKS_PER_BEAT, hp.SEED)
        self.tpf = hp.TICKS_PER_FRAME
        self.frames = hp.WINDOW_FRAMES
        self.max_transpose = hp.MAX_TRANSPOSE
        self.gen = torch.Generator()
        self.gen.manual_seed(hp.SEED + 1)

    def __len__(self):
        return len(self.tracks)

    def __getitem__(self, idx):
        notes, end_tick = events_to_notes(self.tracks[idx])
        total = end_tick // self.tpf + 1
        start = int(torch.randint(0, max(1, total - self.frames), (1,), generator=self.gen))
        shift = int(torch.randint(-self.max_transpose, self.max_transpose + 1, (1,), generator=self.gen))
        roll, onsets = render(notes, start, self.frames, shift, self.tpf)
        stop = start + self.frames
        sounding = sum(1 for _, on, off, _ in notes
                       if on // self.tpf < stop and max(on // self.tpf + 1, off // self.tpf) > start)
        return torch.tensor(roll), torch.tensor(onsets), self.labels[idx], sounding


def collate_rolls(items):
    rolls, onsets, styles, counts = zip(*items)
    return RollBatch(torch.stack(rolls), torch.stack(onsets), torch.tensor(styles), torch.tensor(counts))
