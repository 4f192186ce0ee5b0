from .tokenizer import MorphemeBPE  # noqa: F401
