# Geneformer-style rank-value encoding of single-cell profiles, cell-type classification.
SEED = 31
N_CELLS = 3000
N_GENES = 3000
N_CELL_TYPES = 7
UNMAPPED_FRACTION = 0.05      # genes absent from the token dictionary (no reference median)
TARGET_SUM = 10_000.0

MAX_TOKENS = 256              # <cls> + top 255 genes
GENE_KEEP = 0.9              # gene dropout augmentation, drawn per access

BATCH_SIZE = 96
NUM_WORKERS = 0
EPOCHS = 4
LR = 2e-3
EMBED_DIM = 32
