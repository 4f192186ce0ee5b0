"""Adversarial proposer: wrong edits served through the real LLM path, to see where verify rejects them."""
