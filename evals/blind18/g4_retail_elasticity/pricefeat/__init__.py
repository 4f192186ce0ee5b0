"""Retail price-change logs -> weekly price / promotion / elasticity features."""
from .dataset import PriceWindowDataset, WeeklyBatch, collate_weekly
from .synth import synth_catalog

__all__ = ["PriceWindowDataset", "WeeklyBatch", "collate_weekly", "synth_catalog"]
