"""Run settings for the road-network speed model (read with runpy; UPPERCASE names only)."""
SEED = 4242

# synthetic city
GRID = 56                 # intersections per side
REMOVE_EDGE_PROB = 0.12   # missing street segments
ARTERIAL_EVERY = 7

# subgraph sampling
MIN_HOPS, MAX_HOPS = 4, 7
MAX_NODES = 224
EDGE_DROPOUT = 0.1
CENTERS = 1024

# loader / optimisation
BATCH_SIZE = 48
NUM_WORKERS = 0
MAX_STEPS = 112
LR = 3e-3
HIDDEN = 16
