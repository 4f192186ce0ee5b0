from .data import FastTensorDataLoader, make_grading_data
from .model import CoralMLP, coral_loss, coral_predict
from .callbacks import KappaLogger

__all__ = ["FastTensorDataLoader", "make_grading_data", "CoralMLP", "coral_loss", "coral_predict",
           "KappaLogger"]
