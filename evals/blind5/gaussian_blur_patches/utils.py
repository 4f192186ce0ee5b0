from collections import deque


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
    def median(self):
        d = sorted(self.deque)
        return d[len(d) // 2]

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = {}
        self.delimiter = delimiter

    def update(self, n=1, **kwargs):
        for k, v in kwargs.items():
            self.meters.setdefault(k, SmoothedValue()).update(v, n)

    def __str__(self):
        return self.delimiter.join(f"{k}: {m.median:.4f} ({m.global_avg:.4f})" for k, m in self.meters.items())

    def log_every(self, iterable, print_freq, header=""):
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0:
                print(f"{header} [{i}] {self}")
