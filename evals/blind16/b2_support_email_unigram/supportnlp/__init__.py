"""Support-email intent classification: cleaning, a unigram piece tokenizer, data and collator."""
from .cleaning import clean_email
from .data import SupportEmailDataset, DataCollatorWithPadding, generate_mailbox
from .tokenizer import UnigramTokenizer

__all__ = ["clean_email", "SupportEmailDataset", "DataCollatorWithPadding", "generate_mailbox",
           "UnigramTokenizer"]
