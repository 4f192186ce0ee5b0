"""The pipeline's own `agent` package (a reinforcement-learning repo might have one)."""
OWNER = "pipeline"
