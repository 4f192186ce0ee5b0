"""Session-based news recommendation: click logs, dwell-weighted histories, sampled softmax."""
from .data import ClickStreamDataset, NewsBatch, collate_news
from .logs import synth_click_logs
from .model import DwellAttentionRecommender

__all__ = ["ClickStreamDataset", "NewsBatch", "collate_news", "synth_click_logs", "DwellAttentionRecommender"]
