"""Exceptions raised by notebook_tools.

Every exception the library raises on purpose derives from `NotebookToolsError`,
so one `except` clause catches them all::

    NotebookToolsError
    ├── ToolDefinitionError (+ TypeError)      a tool cannot be declared as written
    ├── AgentBusyError (+ RuntimeError)        run/resume while another call is under way or pending
    ├── SessionNotFoundError (+ KeyError)      no saved session with that agent_uuid
    ├── NoFrontendError (+ RuntimeError)       nobody can answer a prompt (on_no_frontend="fail")
    └── ToolResultError (+ ValueError)         results given to `resume` are refused; state is unchanged
        ├── ToolResultIdsError                 the ids are not exactly the pending set
        └── InvalidToolResultError             a result has the wrong type, size or shape

A refused `resume` never changes the session: the error is raised before anything
is written, stored or sent to the API.
"""

from __future__ import annotations

from collections.abc import Iterable


class NotebookToolsError(Exception):
    """Base class of every error raised on purpose by notebook_tools."""


class ToolDefinitionError(NotebookToolsError, TypeError):
    """A function cannot be turned into a tool (bad options or signature)."""


class AgentBusyError(NotebookToolsError, RuntimeError):
    """The agent cannot take this call in its current state."""


class SessionNotFoundError(NotebookToolsError, KeyError):
    """No session with the given `agent_uuid` exists in the store."""

    def __init__(self, agent_uuid: str) -> None:
        super().__init__(agent_uuid)
        self.agent_uuid = agent_uuid

    def __str__(self) -> str:
        return f"No saved session with agent_uuid {self.agent_uuid!r} in the store."


class NoFrontendError(NotebookToolsError, RuntimeError):
    """A frontend call needs a person, and no view of the widget is attached."""


class ToolResultError(NotebookToolsError, ValueError):
    """Tool results handed to `Agent.resume` were refused; the session is unchanged."""


def _ids(ids: Iterable[str]) -> str:
    return ", ".join(repr(i) for i in sorted(ids))


class ToolResultIdsError(ToolResultError):
    """The `tool_use_id`s of the results are not exactly the pending set."""

    def __init__(
        self,
        *,
        missing: Iterable[str] = (),
        unknown: Iterable[str] = (),
        not_pending: Iterable[str] = (),
        duplicate: Iterable[str] = (),
        nothing_pending: bool = False,
    ) -> None:
        self.missing = sorted(set(missing))
        self.unknown = sorted(set(unknown))
        self.not_pending = sorted(set(not_pending))
        self.duplicate = sorted(set(duplicate))
        parts: list[str] = []
        if nothing_pending:
            parts.append("no frontend tool call is pending in this session")
        if self.missing:
            parts.append(f"missing results for pending ids {_ids(self.missing)}")
        if self.duplicate:
            parts.append(f"duplicate results for ids {_ids(self.duplicate)}")
        if self.unknown:
            parts.append(f"unknown ids {_ids(self.unknown)}")
        if self.not_pending:
            parts.append(f"ids that are not pending (already answered) {_ids(self.not_pending)}")
        super().__init__(
            "Tool results must answer exactly the pending frontend tool calls: " + "; ".join(parts) + "."
        )


class InvalidToolResultError(ToolResultError):
    """One result has content of the wrong type, is too large, or breaks the tool's output schema."""

    def __init__(self, tool_use_id: str, reason: str) -> None:
        self.tool_use_id = tool_use_id
        self.reason = reason
        super().__init__(f"Invalid result for tool_use_id {tool_use_id!r}: {reason}")
