from .collator import DataCollatorForCopySeq2Seq
from .corpus import ParallelCorpus, make_parallel_corpus
from .sampler import BucketBatchSampler
from .vocab import Vocab

__all__ = ["DataCollatorForCopySeq2Seq", "ParallelCorpus", "make_parallel_corpus", "BucketBatchSampler", "Vocab"]
