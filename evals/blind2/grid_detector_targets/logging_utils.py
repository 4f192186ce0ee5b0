"""MetricLogger / SmoothedValue in the spirit of torchvision's detection references."""
import statistics
import time
from collections import defaultdict, deque


class SmoothedValue:
    def __init__(self, window_size=20, fmt="{median:.4f} ({global_avg:.4f})"):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0
        self.fmt = fmt

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def median(self):
        return statistics.median(self.deque)

    @property
    def global_avg(self):
        return self.total / self.count

    def __str__(self):
        return self.fmt.format(median=self.median, global_avg=self.global_avg)


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            self.meters[k].update(float(v))

    def log_every(self, iterable, print_freq, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0:
                body = self.delimiter.join(f"{name}: {m}" for name, m in self.meters.items())
                print(f"{header} [{i}]  {body}  ({time.time() - start:.1f}s)")
