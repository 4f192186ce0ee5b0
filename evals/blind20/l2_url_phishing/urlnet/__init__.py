from .collator import UrlDataCollator
from .dataset import UrlDataset
from .features import UrlFeaturizer
from .model import UrlClassifier
from .synth import generate_urls

__all__ = ["UrlDataCollator", "UrlDataset", "UrlFeaturizer", "UrlClassifier", "generate_urls"]
