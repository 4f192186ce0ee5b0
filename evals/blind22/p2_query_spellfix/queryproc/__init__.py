from .corpus import build_query_log, build_vocabulary
from .data import DataCollatorWithPadding, QueryLogDataset
from .tokenizer import QueryTokenizer

__all__ = ["build_query_log", "build_vocabulary", "DataCollatorWithPadding", "QueryLogDataset", "QueryTokenizer"]
