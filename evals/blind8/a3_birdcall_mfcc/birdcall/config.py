import tomllib
from dataclasses import dataclass, fields


@dataclass
class ExperimentConfig:
    seed: int = 0
    epochs: int = 1


@dataclass
class DataConfig:
    num_clips: int = 1000
    sample_rate: int = 8000
    clip_seconds: float = 0.6
    crop_seconds: float = 0.4
    num_species: int = 6
    snr_db_min: float = 5.0
    snr_db_max: float = 20.0


@dataclass
class FeatureConfig:
    preemphasis: float = 0.97
    frame_length: int = 200
    hop_length: int = 80
    n_fft: int = 256
    n_mels: int = 26
    n_mfcc: int = 13
    fmin: float = 0.0
    fmax: float = 4000.0
    cmn: bool = True


@dataclass
class OptimConfig:
    batch_size: int = 16
    lr: float = 0.01
    momentum: float = 0.9
    weight_decay: float = 0.0


@dataclass
class Config:
    experiment: ExperimentConfig
    data: DataConfig
    features: FeatureConfig
    optim: OptimConfig


def _build(cls, table):
    known = {f.name for f in fields(cls)}
    unknown = set(table) - known
    if unknown:
        raise ValueError(f"unknown keys for {cls.__name__}: {sorted(unknown)}")
    return cls(**table)


def load_config(path):
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    return Config(
        experiment=_build(ExperimentConfig, raw.get("experiment", {})),
        data=_build(DataConfig, raw.get("data", {})),
        features=_build(FeatureConfig, raw.get("features", {})),
        optim=_build(OptimConfig, raw.get("optim", {})),
    )
