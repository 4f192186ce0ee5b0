"""Gradient health monitor: histogram of gradient values, zero fraction, max |g| per step."""


class GradMonitor:
    def __init__(self, bins, value_range):
        self.bins = bins
        self.lo = -value_range
        self.width = 2 * value_range / bins
        self.hist = [0] * bins
        self.zeros = 0
        self.count = 0
        self.max_abs_trace = []

    def observe(self, named_parameters):
        step_max = 0.0
        for name, p in named_parameters:
            if p.grad is None:
                continue
            for v in p.grad.flatten().tolist():
                self.count += 1
                if v == 0.0:
                    self.zeros += 1
                    continue
                a = abs(v)
                if a > step_max:
                    step_max = a
                b = int((v - self.lo) / self.width)
                if b < 0:
                    b = 0
                elif b >= self.bins:
                    b = self.bins - 1
                self.hist[b] += 1
        self.max_abs_trace.append(step_max)
        return step_max

    def summary(self):
        return {"hist": self.hist, "zeros": self.zeros, "count": self.count,
                "max_abs_sum": sum(self.max_abs_trace)}
