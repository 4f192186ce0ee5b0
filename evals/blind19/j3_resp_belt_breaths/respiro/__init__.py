from .dataset import BeltWindowDataset
from .model import BreathNet
