"""A deterministic synthetic TTS corpus: phoneme sequences with forced-aligned
durations (in frames), a per-phoneme F0 and frame-level mel targets."""
import numpy as np

PHONEMES = ["<pad>", "sil", "sp"] + [
    p + s for p in ("AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW")
    for s in ("0", "1", "2")
] + ["B", "CH", "D", "DH", "F", "G", "HH", "JH", "K", "L", "M", "N", "NG", "P", "R", "S", "SH",
     "T", "TH", "V", "W", "Y", "Z", "ZH"]
PAD_ID = 0


def make_corpus(num_utterances, min_phonemes, max_phonemes, max_duration, n_mels, seed):
    rng = np.random.default_rng(seed)
    n_ph = len(PHONEMES)
    ph_mel = rng.normal(0.0, 1.0, size=(n_ph, n_mels))
    ph_dur = rng.uniform(2.0, max_duration - 2.0, size=n_ph)
    items = []
    for i in range(num_utterances):
        n = int(rng.integers(min_phonemes, max_phonemes + 1))
        ph = rng.integers(3, n_ph, size=n)
        ph[0] = ph[-1] = 1  # leading / trailing silence
        dur = np.clip(np.rint(ph_dur[ph] * rng.uniform(0.6, 1.4, size=n)), 1, max_duration).astype(np.int64)
        f0 = 120.0 + 40.0 * rng.random() + 15.0 * rng.standard_normal(n)
        frames = np.repeat(ph, dur)
        t = np.arange(len(frames)) / 80.0
        mel = ph_mel[frames] + 0.3 * np.sin(2 * np.pi * t)[:, None] + 0.1 * rng.standard_normal((len(frames), n_mels))
        items.append({
            "utt_id": f"utt{i:05d}",
            "phonemes": ph.tolist(),
            "durations": dur.tolist(),
            "pitch": ((f0 - 140.0) / 30.0).tolist(),
            "mel": mel.astype(np.float32),
        })
    return items
