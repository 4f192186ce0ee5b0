"""HF-style collator for extractive QA: tokenise question and context, split long contexts into
overlapping windows, map the answer's character span to token positions, and keep one window per
example (an answer window with probability p, otherwise any window; impossible ones point at [CLS])."""
import random

import torch


class DataCollatorForSpanQA:
    def __init__(self, tokenizer, max_length, max_query_length, doc_stride, p_answer_window, seed):
        self.tok = tokenizer
        self.max_length = max_length
        self.max_query_length = max_query_length
        self.doc_stride = doc_stride
        self.p_answer = p_answer_window
        self.rng = random.Random(seed)

    def windows(self, n_ctx, budget):
        """Start/end (exclusive) context-token ranges; consecutive windows overlap by doc_stride."""
        spans, start = [], 0
        while True:
            end = min(start + budget, n_ctx)
            spans.append((start, end))
            if end == n_ctx:
                return spans
            start = end - self.doc_stride

    @staticmethod
    def char_to_token_span(offsets, w_start, w_end, start_char, end_char):
        """Token positions (within the context) of the answer, or None when the window misses it."""
        if not (offsets[w_start][0] <= start_char and offsets[w_end - 1][1] >= end_char):
            return None
        i = w_start
        while i < w_end and offsets[i][0] <= start_char:
            i += 1
        j = w_end - 1
        while j >= w_start and offsets[j][1] >= end_char:
            j -= 1
        return i - 1, j + 1

    def encode_example(self, ex):
        q_ids, _ = self.tok.tokenize_with_offsets(ex["question"])
        q_ids = q_ids[:self.max_query_length]
        c_ids, c_offsets = self.tok.tokenize_with_offsets(ex["context"])
        start_char = ex["answers"]["answer_start"][0]
        end_char = start_char + len(ex["answers"]["text"][0])
        budget = self.max_length - len(q_ids) - 3
        features = []
        for w_start, w_end in self.windows(len(c_ids), budget):
            span = self.char_to_token_span(c_offsets, w_start, w_end, start_char, end_char)
            prefix = 2 + len(q_ids)  # [CLS] question [SEP]
            if span is None:
                s_pos = e_pos = 0
            else:
                s_pos, e_pos = prefix + span[0] - w_start, prefix + span[1] - w_start
            input_ids = [self.tok.cls_id] + q_ids + [self.tok.sep_id] + c_ids[w_start:w_end] + [self.tok.sep_id]
            type_ids = [0] * prefix + [1] * (w_end - w_start + 1)
            features.append({"input_ids": input_ids, "token_type_ids": type_ids,
                             "start_positions": s_pos, "end_positions": e_pos, "has_answer": span is not None})
        return features

    def __call__(self, examples):
        chosen = []
        for ex in examples:
            feats = self.encode_example(ex)
            with_answer = [f for f in feats if f["has_answer"]]
            if with_answer and self.rng.random() < self.p_answer:
                chosen.append(self.rng.choice(with_answer))
            else:
                chosen.append(self.rng.choice(feats))
        width = max(len(f["input_ids"]) for f in chosen)
        batch = {"input_ids": [], "token_type_ids": [], "attention_mask": [],
                 "start_positions": [], "end_positions": []}
        for f in chosen:
            pad = width - len(f["input_ids"])
            batch["input_ids"].append(f["input_ids"] + [self.tok.pad_id] * pad)
            batch["token_type_ids"].append(f["token_type_ids"] + [0] * pad)
            batch["attention_mask"].append([1] * len(f["input_ids"]) + [0] * pad)
            batch["start_positions"].append(f["start_positions"])
            batch["end_positions"].append(f["end_positions"])
        return {k: torch.tensor(v, dtype=torch.long) for k, v in batch.items()}
