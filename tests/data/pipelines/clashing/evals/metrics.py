def accuracy(logits, labels):
    return float((logits.argmax(dim=1) == labels).float().mean())
