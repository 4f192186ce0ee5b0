"""Synthetic speech-translation corpus with word-level timestamps.

Each utterance is a sequence of source words; every word is a few BPE subwords and has a
(start, end) time from a forced aligner.  The "audio" is a log-mel-like matrix where each
subword leaves its own spectral signature over its frames, plus noise.  The translation is
a short list of target-language token ids loosely tied to the source words.
"""
import numpy as np


class SyntheticSTCorpus:
    def __init__(self, seed, num_utterances, min_words, max_words, frame_rate, n_mels,
                 source_subwords, target_vocab):
        rng = np.random.default_rng(seed)
        self.frame_rate = frame_rate
        self.n_mels = n_mels
        self.source_subwords = source_subwords
        self.target_vocab = target_vocab
        # a lexicon of source words -> subword pieces (ids >= 4; 0..3 are specials)
        n_lex = 400
        self.lexicon = [list(rng.integers(4, source_subwords, size=rng.integers(1, 4))) for _ in range(n_lex)]
        self.translation = rng.integers(4, target_vocab, size=n_lex)
        signatures = rng.normal(0.0, 1.0, size=(source_subwords, n_mels)).astype(np.float32)

        self.utterances = []
        for _ in range(num_utterances):
            n_words = int(rng.integers(min_words, max_words + 1))
            words = rng.integers(0, n_lex, size=n_words)
            t = float(rng.uniform(0.05, 0.3))
            timings = []
            for _w in words:
                dur = float(rng.uniform(0.18, 0.65))
                timings.append((round(t, 3), round(t + dur, 3)))
                t += dur + float(rng.uniform(0.0, 0.15))
            n_frames = int(round(t * frame_rate)) + 2
            feats = rng.normal(0.0, 0.3, size=(n_frames, n_mels)).astype(np.float32)
            for w, (start, end) in zip(words, timings):
                pieces = self.lexicon[w]
                f0, f1 = int(round(start * frame_rate)), int(round(end * frame_rate))
                edges = np.linspace(f0, f1, len(pieces) + 1).astype(int)
                for p, a, b in zip(pieces, edges[:-1], edges[1:]):
                    feats[a:b] += signatures[p]
            target = [int(self.translation[w]) for w in words if rng.random() < 0.8]
            self.utterances.append({
                "feats": feats,
                "words": [int(w) for w in words],
                "pieces": [[int(p) for p in self.lexicon[w]] for w in words],
                "timings": timings,
                "target": target,
            })
