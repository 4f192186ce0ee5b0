"""Lightning-style callbacks: hooks the trainer calls around each training batch."""


class Callback:
    def on_train_start(self, trainer, module):
        pass

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass

    def on_train_end(self, trainer, module):
        pass


class LossHistory(Callback):
    def __init__(self):
        self.losses = []

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.losses.append(float(outputs["loss"].detach()))


def ranks_of_matches(scores):
    """0-based rank of the matching item (column i for row i) when row i is sorted best-first."""
    ranks = []
    for i, row in enumerate(scores):
        order = sorted(range(len(row)), key=lambda j: row[j], reverse=True)
        ranks.append(order.index(i))
    return ranks


def recall_at(ranks, k):
    return 100.0 * sum(1 for r in ranks if r < k) / len(ranks)


def mean_rank(ranks):
    return sum(r + 1 for r in ranks) / len(ranks)


class RetrievalMetrics(Callback):
    """In-batch retrieval: R@1/5/10 and mean rank, image->text and text->image, every step."""

    def __init__(self, ks=(1, 5, 10)):
        self.ks = tuple(ks)
        self.history = {}

    def _log(self, name, value):
        self.history.setdefault(name, []).append(value)

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        sim = outputs["similarity"].tolist()           # rows: images, columns: captions
        directions = {
            "i2t": ranks_of_matches(sim),
            "t2i": ranks_of_matches([list(col) for col in zip(*sim)]),
        }
        for name, ranks in directions.items():
            for k in self.ks:
                self._log(f"{name}/R@{k}", recall_at(ranks, k))
            self._log(f"{name}/mean_rank", mean_rank(ranks))
        rsum = sum(self.history[f"{name}/R@{k}"][-1] for name in directions for k in self.ks)
        self._log("rsum", rsum)
        trainer.progress["rsum"] = rsum
