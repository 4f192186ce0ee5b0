from .book import LINES, PERILS, CAUSES, build_policy_store, generate_claims
from .dataset import ClaimsDataset

__all__ = ["LINES", "PERILS", "CAUSES", "build_policy_store", "generate_claims", "ClaimsDataset"]
