import tomllib
from dataclasses import dataclass, field


@dataclass
class DataConfig:
    seed: int = 0
    utterances: int = 1000
    feature_dim: int = 24
    max_frames: int = 80
    words_per_utterance: list = field(default_factory=lambda: [2, 4])
    noise: float = 0.3


@dataclass
class ModelConfig:
    context: int = 1
    hidden: int = 64


@dataclass
class TrainerConfig:
    max_epochs: int = 1
    batch_size: int = 32
    lr: float = 1e-3
    log_every_n_steps: int = 50


@dataclass
class Config:
    data: DataConfig
    model: ModelConfig
    trainer: TrainerConfig


def load_config(path):
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    return Config(DataConfig(**raw.get("data", {})), ModelConfig(**raw.get("model", {})),
                  TrainerConfig(**raw.get("trainer", {})))
