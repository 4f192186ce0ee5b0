# Graphormer-lite on synthetic molecules; loaded by train.py with importlib.
SEED = 11
NUM_GRAPHS = 2400
MIN_ATOMS, MAX_ATOMS = 40, 64
NUM_ATOM_TYPES = 9
MAX_DIST = 8

MODEL = dict(dim=32, heads=4, layers=1)
TRAIN = dict(batch_size=32, epochs=2, lr=1e-3, workers=0)
