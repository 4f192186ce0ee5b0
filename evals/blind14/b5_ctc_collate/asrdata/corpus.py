"""Synthetic read-speech corpus: transcripts as a recipe would find them, log-mel features per utterance."""
import numpy as np
from torch.utils.data import Dataset

_WORDS = ("the a of to and in is was for on that with as by at from it his her they we this be are were had "
          "not but which one you all there their been has have when who will more no if out so said what up its "
          "about into than them can only other new some could time these two may then do first any my now such "
          "like our over man me even most made after also did many before must through back years where much "
          "your way well down should because each just those people how too little state good very make world "
          "still own see men work long get here between both life being under never day same another know while "
          "last might us great old year off come since against go came right used take three café naïve résumé "
          "coöperate fiancée").split()
_PRE = ("Dr.", "Mr.", "Mrs.", "No.", "St.")


def make_transcript(rng):
    n = int(rng.integers(3, 9))
    words = list(rng.choice(_WORDS, n))
    for _ in range(int(rng.integers(0, 3))):
        pos = int(rng.integers(0, len(words) + 1))
        kind = rng.random()
        if kind < 0.3:
            token = str(int(rng.integers(0, 2000)))
        elif kind < 0.45:
            token = f"${int(rng.integers(1, 100))}.{int(rng.integers(0, 100)):02d}"
        elif kind < 0.6:
            token = f"{int(rng.integers(1, 32))}{rng.choice(['st', 'nd', 'rd', 'th'])}"
        elif kind < 0.7:
            token = f"{int(rng.integers(2, 100))}%"
        elif kind < 0.8:
            token = f"{rng.choice(_PRE)} {rng.choice(_WORDS).capitalize()}"
        elif kind < 0.9:
            token = f"{int(rng.integers(1950, 2000)) // 10 * 10}s"
        else:
            token = "&"
        words.insert(pos, token)
    text = " ".join(words)
    text = text[0].upper() + text[1:]
    if rng.random() < 0.3:
        text = "\u201c" + text + "\u201d"
    if rng.random() < 0.2:
        text = text.replace(" it ", " it\u2019s ", 1)
    return text + rng.choice([".", "?", "!", "", " \u2014 right?"])


class SyntheticSpeechCorpus(Dataset):
    """Each item: {"id", "text", "input_values": float32 (frames, n_mels)}; ~6.5 frames per character."""

    def __init__(self, n_utterances, n_mels, seed):
        rng = np.random.default_rng(seed)
        self.items = []
        for i in range(n_utterances):
            text = make_transcript(rng)
            frames = int(len(text) * rng.uniform(5.5, 7.5)) + int(rng.integers(20, 60))
            envelope = np.cumsum(rng.normal(0, 0.3, n_mels)) - 4.0
            energy = np.convolve(rng.normal(0, 1.0, frames), np.ones(9) / 9.0, mode="same")[:, None]
            feats = envelope[None, :] + 1.5 * energy + rng.normal(0, 0.6, (frames, n_mels))
            self.items.append({"id": f"utt{i:05d}", "text": text, "input_values": feats.astype(np.float32)})

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]
