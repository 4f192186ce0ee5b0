# mmcv-style python config: multi-label movie genre tagging from plot embeddings
seed = 17

data = dict(
    num_movies=12288,
    embed_dim=192,
    num_genres=24,
    label_noise=0.03,
)

model = dict(
    hidden=(256, 128),
    dropout=0.1,
)

optimizer = dict(type="AdamW", lr=1e-3, weight_decay=1e-2)
train = dict(batch_size=256, epochs=4, log_interval=25)

# running metrics over a sliding window of recent predictions
metrics = dict(window=4096, topk=3, threshold=0.5, loss_median_window=50)
