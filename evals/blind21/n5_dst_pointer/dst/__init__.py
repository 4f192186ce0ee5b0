from .collator import DSTCollator
from .corpus import DialogueCorpus, GATE_DONTCARE, GATE_NONE, GATE_SPAN
from .sampler import LengthGroupedSampler
