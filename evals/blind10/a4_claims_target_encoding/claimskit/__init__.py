"""claimskit: parse claims CSV exports, encode categories, feed a severity model."""
from .data import ClaimsBatch, ClaimsCollator, ClaimsDataset
from .encoders import SmoothedTargetEncoder
from .synth import generate_claims_csv

__all__ = ["ClaimsBatch", "ClaimsCollator", "ClaimsDataset", "SmoothedTargetEncoder", "generate_claims_csv"]
