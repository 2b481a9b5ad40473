"""What every front end holds: a `FrontendSession`, the agent and the prompts of one chat, joined.

A `FrontendSession` opens an agent's prompts in its broker and hands each answer down to the agent;
it drives the agent's turns in a task of their own (Ctrl-C while a turn awaits stops it), answers
the agent's MCP servers (elicitation, sampling, sign-in, apps) through the same prompts, and after
a kernel restart takes up a saved session where it paused. The widget, the terminal and the HTTP
server's held runs each hold one; this package imports none of them. `ClaudeCodeSession` is the
same for an `nt.ClaudeCode`: its cards in the session's broker, Stop interrupting the CLI.
"""

from ._claude_code import ClaudeCodeSession
from ._session import FrontendSession

__all__ = ["ClaudeCodeSession", "FrontendSession"]
