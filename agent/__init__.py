"""perfloop's agent layer: the LangGraph loop, its nodes, the CLI and the LLM client."""
