"""GPU timing for the probe: CUDA events and NVTX ranges per stage, NVML utilization samples.

Runs inside the user's process (standard library, torch, pynvml when present); the probe
creates these only when the pipeline itself initialised CUDA.
"""
from __future__ import annotations

import os
import threading
import time


class CudaTimers:
    """CUDA events around each stage plus NVTX ranges named after the stages."""

    def __init__(self, torch) -> None:
        self.torch = torch
        self.events: list[tuple[int, str, object, object]] = []
        self.open: dict[str, object] = {}
        self.step_index = 0

    def step_start(self, index: int) -> None:
        self.step_index = index
        self.torch.cuda.nvtx.mark(f"perfloop step {index}")

    def push(self, stage: str) -> None:
        self.torch.cuda.nvtx.range_push(f"perfloop:{stage}")
        event = self.torch.cuda.Event(enable_timing=True)
        event.record()
        self.open[stage] = event

    def pop(self, stage: str) -> None:
        self.torch.cuda.nvtx.range_pop()
        start = self.open.pop(stage, None)
        if start is None:
            return
        end = self.torch.cuda.Event(enable_timing=True)
        end.record()
        self.events.append((self.step_index, stage, start, end))

    def summary(self, steps: list[dict]) -> dict:
        self.torch.cuda.synchronize()
        per_step: dict[int, dict[str, float]] = {}
        for index, stage, start, end in self.events:
            bucket = per_step.setdefault(index, {})
            bucket[stage] = bucket.get(stage, 0.0) + start.elapsed_time(end)
        for step in steps:
            step["gpu_ms"] = per_step.get(step["index"], {})
        return {"device": self.torch.cuda.get_device_name(), "stage_events": len(self.events)}


class NvmlSampler(threading.Thread):
    """Sample NVML utilization of the current device at its own period."""

    def __init__(self, period_s: float = 0.2) -> None:
        super().__init__(name="perfloop-nvml", daemon=True)
        self.period_s = period_s
        self.samples: list[tuple[float, int, int]] = []
        self.reason = ""

    def run(self) -> None:
        try:
            import pynvml

            pynvml.nvmlInit()
            index = int((os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0] or 0)
            handle = pynvml.nvmlDeviceGetHandleByIndex(index if index >= 0 else 0)
        except Exception as error:  # NVML absent or broken: say so in the profile
            self.reason = f"{type(error).__name__}: {error}"
            return
        while True:
            rates = pynvml.nvmlDeviceGetUtilizationRates(handle)
            self.samples.append((time.time(), rates.gpu, rates.memory))
            time.sleep(self.period_s)

    def summary(self) -> dict:
        return {"available": not self.reason, "reason": self.reason, "period_s": self.period_s,
                "samples": self.samples[-2000:]}
