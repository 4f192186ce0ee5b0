import tomllib
from dataclasses import dataclass


@dataclass
class RunCfg:
    seed: int
    max_steps: int
    log_every: int


@dataclass
class DataCfg:
    n_jets: int
    min_constituents: int
    max_constituents: int
    k: int
    rotate: bool


@dataclass
class LoaderCfg:
    batch_size: int
    num_workers: int


@dataclass
class ModelCfg:
    width: int
    lr: float


@dataclass
class Config:
    run: RunCfg
    data: DataCfg
    loader: LoaderCfg
    model: ModelCfg


def load_config(path):
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    return Config(RunCfg(**raw["run"]), DataCfg(**raw["data"]),
                  LoaderCfg(**raw["loader"]), ModelCfg(**raw["model"]))
