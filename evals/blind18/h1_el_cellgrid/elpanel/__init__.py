from .dataset import ELPanelDataset, collate_panels
from .transforms import CellCrackMask, CellStats, Compose, GridDetect, ToTensor

__all__ = ["ELPanelDataset", "collate_panels", "Compose", "GridDetect", "CellCrackMask", "CellStats", "ToTensor"]
