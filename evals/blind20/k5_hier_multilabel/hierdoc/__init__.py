from .collator import HierarchicalMultiLabelCollator
from .corpus import SyntheticDocuments, LengthGroupedSampler
from .taxonomy import Taxonomy

__all__ = ["HierarchicalMultiLabelCollator", "SyntheticDocuments", "LengthGroupedSampler", "Taxonomy"]
