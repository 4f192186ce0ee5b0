"""The pipeline's own `tools` package: a name perfloop must neither shadow nor be shadowed by."""
OWNER = "pipeline"
