"""Training configuration for the chromatogram compound-class model."""
from dataclasses import dataclass, field


@dataclass
class DataConfig:
    n_runs: int = 512
    trace_len: int = 4800          # detector samples per run (8 Hz over 10 min)
    max_peaks: int = 40
    n_classes: int = 5
    seed: int = 31337


@dataclass
class TrainConfig:
    batch_size: int = 48
    epochs: int = 7
    lr: float = 1e-3
    threads: int = 1
    log_every: int = 8


@dataclass
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


CONFIG = Config()
