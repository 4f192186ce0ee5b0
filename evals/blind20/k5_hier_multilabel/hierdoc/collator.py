import torch


class HierarchicalMultiLabelCollator:
    """Pads documents to (batch, sentences, tokens) and expands label paths to all their ancestors."""

    def __init__(self, taxonomy, max_sentences, max_tokens, pad_token_id=0):
        self.taxonomy = taxonomy
        self.max_sentences = max_sentences
        self.max_tokens = max_tokens
        self.pad_token_id = pad_token_id

    @property
    def num_labels(self):
        return len(self.taxonomy.labels)

    def multi_hot(self, label_paths):
        target = torch.zeros(self.num_labels)
        for label in label_paths:
            for node in [label] + self.taxonomy.ancestors(label):
                target[self.taxonomy.labels.index(node)] = 1.0
        return target

    def __call__(self, features):
        batch_size = len(features)
        n_sent = min(max(len(f["sentences"]) for f in features), self.max_sentences)
        n_tok = min(max(len(s) for f in features for s in f["sentences"]), self.max_tokens)

        input_ids = torch.full((batch_size, n_sent, n_tok), self.pad_token_id, dtype=torch.long)
        token_mask = torch.zeros((batch_size, n_sent, n_tok), dtype=torch.bool)
        sentence_mask = torch.zeros((batch_size, n_sent), dtype=torch.bool)
        for i, feature in enumerate(features):
            for j, sentence in enumerate(feature["sentences"][:n_sent]):
                for k, token in enumerate(sentence[:n_tok]):
                    input_ids[i, j, k] = token
                    token_mask[i, j, k] = True
                sentence_mask[i, j] = True

        labels = torch.stack([self.multi_hot(f["labels"]) for f in features])
        return {
            "doc_id": torch.tensor([f["doc_id"] for f in features]),
            "input_ids": input_ids,
            "token_mask": token_mask,
            "sentence_mask": sentence_mask,
            "labels": labels,
        }
