"""perfloop's evaluation suite: real pipelines with planted bottlenecks, oracles and a harness."""
