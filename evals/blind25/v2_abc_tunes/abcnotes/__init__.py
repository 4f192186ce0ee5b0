from .tokenizer import ABCTokenizer

__all__ = ["ABCTokenizer"]
