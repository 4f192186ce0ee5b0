# Train a tiny character-level transformer on data/input.txt.
# Read by train.py, which exec's it over its defaults (configurator style).

out_dir = 'out-charlm'
seed = 1337

# data
dataset = 'data'
batch_size = 32
block_size = 64  # context of up to 64 previous characters

# model: a baby transformer, tens of ms a step on one CPU thread
n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

# optimizer
learning_rate = 1e-3
max_iters = 2000
weight_decay = 0.1
grad_clip = 1.0

# system
device = 'cpu'
compile = False  # torch.compile the model
