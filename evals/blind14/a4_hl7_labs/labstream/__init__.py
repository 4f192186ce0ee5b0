"""HL7 v2 ORU^R01 lab results -> fixed analyte panels for a tabular model."""
from .codes import CodeSet, build_code_table
from .dataset import LabBatch, LabPanelDataset, ClassBalancedSampler, collate_panels
from .synth import make_messages

__all__ = ["CodeSet", "build_code_table", "LabBatch", "LabPanelDataset", "ClassBalancedSampler",
           "collate_panels", "make_messages"]
