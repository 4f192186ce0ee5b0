"""Synthetic MS MARCO-style training triples and the DPR collator."""
import torch
from torch.utils.data import Dataset

PAD_ID, CLS_ID, SEP_ID = 0, 101, 102
VOCAB_SIZE = 8192


def build_corpus(rng, num_passages):
    """Passages keyed by 'docN#pK', pre-tokenised (title and body id lists), as stored after tokenisation."""
    corpus = {}
    n_docs = num_passages // 4
    for i in range(num_passages):
        doc = int(rng.integers(0, n_docs))
        pid = f"doc{doc}#p{i % 7}-{i}"
        title = rng.integers(1000, VOCAB_SIZE, int(rng.integers(3, 12))).tolist()
        body = rng.integers(1000, VOCAB_SIZE, int(rng.integers(60, 260))).tolist()
        corpus[pid] = {"title": title, "body": body}
    return corpus


def build_queries(rng, corpus, num_queries, n_negatives_mined=20):
    pids = list(corpus)
    # popular passages are mined as hard negatives for many queries (Zipf-like)
    weights = 1.0 / (1.0 + rng.permutation(len(pids)))
    weights /= weights.sum()
    queries = []
    for q in range(num_queries):
        positives = rng.choice(len(pids), size=int(rng.integers(1, 3)), replace=False).tolist()
        mined = rng.choice(len(pids), size=n_negatives_mined, replace=False, p=weights).tolist()
        queries.append({
            "qid": f"q{q:05d}",
            "query": rng.integers(1000, VOCAB_SIZE, int(rng.integers(4, 20))).tolist(),
            "positives": [pids[k] for k in positives],
            "negatives": [pids[k] for k in mined if k not in positives],
        })
    return queries


class QueryDataset(Dataset):
    def __init__(self, queries):
        self.queries = queries

    def __len__(self):
        return len(self.queries)

    def __getitem__(self, i):
        return self.queries[i]


class DPRCollator:
    """Builds a DPR batch: one sampled positive and k sampled hard negatives per query, the passages
    of the whole batch deduplicated by id (first occurrence order), truncated and padded, the
    target column of each query and a mask of in-batch false negatives."""

    def __init__(self, corpus, max_query_length, max_passage_length, hard_negatives, generator):
        self.corpus = corpus
        self.max_q = max_query_length
        self.max_p = max_passage_length
        self.k = hard_negatives
        self.generator = generator

    def encode_passage(self, pid):
        p = self.corpus[pid]
        ids = [CLS_ID] + p["title"] + [SEP_ID] + p["body"]
        return ids[:self.max_p - 1] + [SEP_ID]

    def __call__(self, examples):
        passage_ids, targets, queries = [], [], []
        for ex in examples:
            pos = ex["positives"][int(torch.randint(len(ex["positives"]), (1,), generator=self.generator))]
            order = torch.randperm(len(ex["negatives"]), generator=self.generator)[:self.k].tolist()
            chosen = [pos] + [ex["negatives"][j] for j in order]
            for pid in chosen:
                if pid not in passage_ids:
                    passage_ids.append(pid)
            targets.append(passage_ids.index(pos))
            queries.append([CLS_ID] + ex["query"][:self.max_q - 2] + [SEP_ID])

        n_q, n_p = len(examples), len(passage_ids)
        q_len = max(len(q) for q in queries)
        query_input_ids = torch.zeros(n_q, q_len, dtype=torch.long)
        query_attention = torch.zeros(n_q, q_len, dtype=torch.long)
        for i, q in enumerate(queries):
            for t, tok in enumerate(q):
                query_input_ids[i, t] = tok
                query_attention[i, t] = 1

        encoded = [self.encode_passage(pid) for pid in passage_ids]
        p_len = max(len(p) for p in encoded)
        passage_input_ids = torch.zeros(n_p, p_len, dtype=torch.long)
        passage_attention = torch.zeros(n_p, p_len, dtype=torch.long)
        for j, ids in enumerate(encoded):
            for t, tok in enumerate(ids):
                passage_input_ids[j, t] = tok
                passage_attention[j, t] = 1

        # in-batch negatives: every passage is a negative for every query, except passages that are
        # annotated positives of that query other than its target (false negatives are masked out)
        negative_mask = torch.ones(n_q, n_p, dtype=torch.bool)
        for i, ex in enumerate(examples):
            for j, pid in enumerate(passage_ids):
                if pid in ex["positives"] and j != targets[i]:
                    negative_mask[i, j] = False
        return {
            "qids": [ex["qid"] for ex in examples],
            "query_input_ids": query_input_ids,
            "query_attention_mask": query_attention,
            "passage_input_ids": passage_input_ids,
            "passage_attention_mask": passage_attention,
            "labels": torch.tensor(targets, dtype=torch.long),
            "negative_mask": negative_mask,
        }
