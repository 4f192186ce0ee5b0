"""perfloop tools: profiling, codemods, patch checks, statistics and the audit log (never imports agent/)."""
