"""Agents that run elsewhere, driven through the same broker and cards as our own.

`ClaudeCode` drives the Claude Code CLI through the Claude Agent SDK (the optional
`claude-code` extra): every permission it asks for is an approval card of a
`PromptBroker`, answered in whichever front end shows it, and never allowed when
something fails. The SDK is imported when a `ClaudeCode` is made, not here.
`ACPAgent` does the same for any Agent Client Protocol agent (the optional `acp` extra).
"""

from ._acp import ACPAgent, TurnEnded
from ._claude_code import ClaudeCode, preview

EXTERNAL_AGENTS = (ClaudeCode, ACPAgent)
"""The agents that run elsewhere which a chat drives (`ClaudeCodeSession`), not our own `Agent`."""

__all__ = ["ACPAgent", "ClaudeCode", "TurnEnded", "preview"]
