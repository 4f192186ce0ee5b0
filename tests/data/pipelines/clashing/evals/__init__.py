"""The pipeline's own `evals` package."""
OWNER = "pipeline"
