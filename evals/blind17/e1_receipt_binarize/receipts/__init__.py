"""Scanned shop receipts: synthetic scans, document transforms and the line-crop dataset."""
from .data import ReceiptScans, build_transform

__all__ = ["ReceiptScans", "build_transform"]
