"""Prompts: open prompts, answers by id, timeouts and policies, and the session front ends hold."""
