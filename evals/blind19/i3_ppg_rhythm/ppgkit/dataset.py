import random

import numpy as np
import torch
from torch.utils.data import IterableDataset

from . import dsp
from .synth import RHYTHMS, synth_recording

# rough scales for the IBI features, so the MLP sees O(1) inputs
FEATURE_SCALE = np.array([1000.0, 200.0, 200.0, 1.0, 100.0, 2.0])


class PPGWindowStream(IterableDataset):
    """Streams fixed-length windows from subject recordings through a shuffle buffer."""

    def __init__(self, cfg_data, cfg_dsp):
        super().__init__()
        self.seed = cfg_data.getint("seed")
        self.fs = cfg_data.getint("fs")
        self.window = int(cfg_data.getfloat("window_s") * self.fs)
        self.hop = int(cfg_data.getfloat("hop_s") * self.fs)
        self.record_s = cfg_data.getfloat("record_s")
        self.num_subjects = cfg_data.getint("num_subjects")
        self.buffer_size = cfg_data.getint("shuffle_buffer")
        self.detrend_s = cfg_dsp.getfloat("detrend_s")
        self.threshold_window_s = cfg_dsp.getfloat("threshold_window_s")
        self.threshold_alpha = cfg_dsp.getfloat("threshold_alpha")
        self.min_height = cfg_dsp.getfloat("min_height")
        self.refractory_s = cfg_dsp.getfloat("refractory_s")
        self.decimate = cfg_dsp.getint("decimate")
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _windows(self):
        order = list(range(self.num_subjects))
        random.Random(self.seed + self.epoch).shuffle(order)
        for subject in order:
            ppg, rhythm = synth_recording(self.seed, subject, self.fs, self.record_s)
            for start in range(0, len(ppg) - self.window + 1, self.hop):
                yield subject, ppg[start:start + self.window], rhythm

    def process(self, raw):
        x = dsp.detrend(raw, self.fs, self.detrend_s)
        thr = dsp.adaptive_threshold(x, self.fs, self.threshold_window_s, self.threshold_alpha, self.min_height)
        peaks = dsp.detect_systolic_peaks(x, thr, self.fs, self.refractory_s)
        feats = dsp.ibi_features(peaks, self.fs, len(x)) / FEATURE_SCALE
        return x[::self.decimate].astype(np.float32), feats.astype(np.float32), len(peaks)

    def __iter__(self):
        rng = random.Random(1000 + self.seed + self.epoch)
        buffer = []
        for item in self._windows():
            buffer.append(item)
            if len(buffer) >= self.buffer_size:
                yield self._sample(buffer.pop(rng.randrange(len(buffer))))
        rng.shuffle(buffer)
        for item in buffer:
            yield self._sample(item)

    def _sample(self, item):
        subject, raw, rhythm = item
        signal, feats, n_peaks = self.process(raw)
        return {
            "signal": torch.from_numpy(signal).unsqueeze(0),
            "features": torch.from_numpy(feats),
            "n_peaks": n_peaks,
            "label": rhythm,
        }
