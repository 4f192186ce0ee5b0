import time
from collections import defaultdict, deque


class SmoothedValue:
    def __init__(self, window_size=20):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def avg(self):
        return sum(self.deque) / max(len(self.deque), 1)

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            self.meters[k].update(float(v))

    def __str__(self):
        return self.delimiter.join(f"{k}: {m.avg:.4f} ({m.global_avg:.4f})" for k, m in self.meters.items())

    def log_every(self, iterable, print_freq, header=""):
        t0 = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0:
                print(f"{header} [{i}/{len(iterable)}] {self} time: {time.time() - t0:.1f}s", flush=True)
