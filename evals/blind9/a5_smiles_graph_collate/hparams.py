# Graphormer-lite regression on SMILES-like molecules. Read with runpy.run_path.
seed = 99

# data
num_molecules = 2400
min_atoms = 22
max_atoms = 46
max_ring_closures = 3
max_distance = 8          # shortest-path distances are clipped here (spatial encoding buckets)

# loader
batch_size = 24
num_workers = 0

# model
hidden = 48
heads = 4
layers = 1
dropout = 0.0

# optimisation
lr = 1e-3
max_steps = 120
print_freq = 15
