"""The scripted OpenAI-compatible server now lives in evals/scripted_llm.py; re-exported for the tests."""
from perfloop.evals.scripted_llm import Reply, ScriptedLLM

__all__ = ["Reply", "ScriptedLLM"]
