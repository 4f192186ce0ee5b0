"""Run settings (read with runpy)."""
SEED = 41

# graph
NUM_NODES = 4000
EDGES_PER_NODE = 4
NUM_COMMUNITIES = 12
FEATURE_DIM = 16
TRAIN_EDGES = 3000

# subgraph sampling
NUM_HOPS = 2
FANOUT = 6
MAX_NODES = 32

# loader / optimisation
BATCH_SIZE = 16
NUM_WORKERS = 0
LR = 0.005
MAX_STEPS = 75
