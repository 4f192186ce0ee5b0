"""Commit-type classification from conventional-commit messages."""
from .corpus import COMMIT_TYPES, generate_commits
from .data import CommitDataset, DataCollatorWithPadding
from .tokenization import HashingSubwordTokenizer

__all__ = ["COMMIT_TYPES", "generate_commits", "CommitDataset", "DataCollatorWithPadding",
           "HashingSubwordTokenizer"]
