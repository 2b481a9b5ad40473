"""Exceptions raised by notebook_tools: one tree, drawn here.

Every exception the library raises on purpose derives from `NotebookToolsError`,
so one `except` clause catches them all. Most also derive from the builtin that
fits them (shown as "+ ValueError" and so on), so `except ValueError` code keeps
working::

    NotebookToolsError
    ├── ConfigurationError (+ ValueError)          a constructor argument is not one of its allowed values
    │   └── AgentSpecError                         `chat --agent` names no callable, or it builds no Agent
    ├── AugmentationError (+ ValueError)           a tool-set change names an unknown plugin or tool
    ├── ToolFailure                                raised BY a tool: the model gets an error result with
    │                                              its error_type, suggested_action and is_retryable
    ├── ToolDefinitionError (+ TypeError)          a tool cannot be declared as written
    │   └── FrontendToolCalledError                a schema-only frontend tool was called from Python
    ├── AgentBusyError (+ RuntimeError)            run/resume while another call is under way or pending
    ├── NothingToRetryError (+ RuntimeError)       `retry()` when the last turn ended with a reply
    ├── SessionInvariantError (+ RuntimeError)     a change would leave a session the API rejects
    ├── IncompleteResponseError (+ RuntimeError)   a response stream was cut off, retries spent
    ├── SessionNotFoundError (+ KeyError)          no saved session with that agent_uuid
    ├── FileNotChosenError (+ KeyError)            `chat.files[key]`: no chosen file has that path or name
    ├── NoFrontendError (+ RuntimeError)           nobody can answer a prompt (on_no_frontend="fail")
    ├── PromptNotAnswered                          an `nt.ask` prompt was skipped, timed out or not shown
    ├── ToolResultError (+ ValueError)             results given to `resume` are refused; state unchanged
    │   ├── ToolResultIdsError                     the ids are not exactly the pending set
    │   └── InvalidToolResultError                 a result has the wrong type, size or shape
    ├── StoreError                                 the store refuses a save, cannot read a row or its server
    │   ├── StaleSessionError (+ RuntimeError)     a save not from the stored revision; nothing written
    │   ├── CorruptSessionError (+ ValueError)     a stored row is not JSON, or not a valid AgentState
    │   └── UnsupportedSchemaError (+ ValueError)  a row or store file from a newer notebook_tools
    ├── MCPServerError (+ RuntimeError)            an MCP server failed, went silent, or asked the impossible
    ├── CassetteError (+ ValueError)               a cassette file cannot be read, or is missing for a replay
    │   └── CassetteMismatchError                  a request differs from the one the cassette recorded
    ├── CheckpointTooLarge                         a run's checkpoint alone is over the undo budget
    ├── UnknownCheckpoint (+ KeyError)             undo to a checkpoint this history does not have
    ├── CheckpointFileError                        a checkpoint kept on disk cannot be read back
    ├── WidgetError (+ RuntimeError)               a widget cannot do this: no agent, a turn running,
    │                                              no event loop, or ipykernel < 7.4 would deadlock
    ├── TerminalSignal                             at the terminal's input: the person's keys, not errors
    │   ├── CtrlC                                  Ctrl+C (the turn stops, or the line clears)
    │   ├── EndOfInput                             Ctrl+D, or the end of piped input (the person leaves)
    │   └── Skip                                   Escape or /skip at a prompt (the prompt is skipped)
    └── ViewInputError (+ ValueError)              what a view sent is refused; the widget shows why
        ├── Refused                                a view's message cannot be handled (malformed, busy)
        ├── AnswerError                            a view's answer does not fit its prompt
        ├── FileAccessError                        a file request: too big, outside the root, unknown
        ├── InvalidInput                           what the person typed at the terminal does not parse
        └── HTTPRefusal                            an HTTP request is refused with a 4xx; nothing changed

A refused `resume` never changes the session: the error is raised before anything
is written, stored or sent to the API. A refused save (`StaleSessionError`) leaves
the store as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class NotebookToolsError(Exception):
    """Base class of every error raised on purpose by notebook_tools."""


class ConfigurationError(NotebookToolsError, ValueError):
    """A constructor argument is not one of its allowed values (a zone, a policy, a mode)."""


class AugmentationError(NotebookToolsError, ValueError):
    """A tool-set change names a plugin or tool the agent does not know; nothing was changed."""


class ToolFailure(NotebookToolsError):
    """Raised by a tool to fail with a type, a suggested action and whether trying again may work."""

    def __init__(
        self,
        message: str,
        *,
        error_type: str = "tool_error",
        suggested_action: str | None = None,
        is_retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.error_type = error_type
        self.suggested_action = suggested_action
        self.is_retryable = is_retryable

    def model_text(self) -> str:
        """What the model reads."""
        parts = [f"{self.error_type}: {self.message}"]
        if self.suggested_action:
            parts.append(f"Suggested action: {self.suggested_action}")
        parts.append("Trying again may work." if self.is_retryable else "Trying again as is will not help.")
        return "\n".join(parts)


class ToolDefinitionError(NotebookToolsError, TypeError):
    """A function cannot be turned into a tool (bad options or signature)."""


class FrontendToolCalledError(ToolDefinitionError):
    """A schema-only frontend tool was called as a Python function."""


class AgentBusyError(NotebookToolsError, RuntimeError):
    """The agent cannot take this call in its current state."""


class NothingToRetryError(NotebookToolsError, RuntimeError):
    """`retry()` found nothing to request again: the last turn ended with the model's reply.

    A Stop after the reply was whole leaves it so too. The session is not busy; send a message to go on.
    """

    DEFAULT = "nothing to retry: the last turn ended with the model's reply; send a message to go on"

    def __init__(self, message: str = DEFAULT) -> None:
        super().__init__(message)


class SessionInvariantError(NotebookToolsError, RuntimeError):
    """A state change would leave the session invalid (raised before anything changes; a bug)."""

    def __init__(self, agent_uuid: str, problems: Iterable[str]) -> None:
        self.agent_uuid = agent_uuid
        self.problems = list(problems)
        super().__init__(f"Session {agent_uuid!r} would be left invalid: " + "; ".join(self.problems))

    def __reduce__(self) -> tuple[type[SessionInvariantError], tuple[str, list[str]]]:
        return type(self), (self.agent_uuid, self.problems)


class IncompleteResponseError(NotebookToolsError, RuntimeError):
    """A response stream was cut off (dropped, or ended without `message_stop`) more often than retried."""


class SessionNotFoundError(NotebookToolsError, KeyError):
    """No session with the given `agent_uuid` exists in the store."""

    def __init__(self, agent_uuid: str) -> None:
        super().__init__(agent_uuid)
        self.agent_uuid = agent_uuid

    def __str__(self) -> str:
        return f"No saved session with agent_uuid {self.agent_uuid!r} in the store."


class NoFrontendError(NotebookToolsError, RuntimeError):
    """A frontend call needs a person, and no view of the widget is attached."""


class PromptNotAnswered(NotebookToolsError):
    """The person skipped the prompt, or it timed out."""


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


class StoreError(NotebookToolsError):
    """The session store refused a save, or cannot read what it holds."""


class StaleSessionError(StoreError, RuntimeError):
    """A save did not start from the session's latest stored revision; the store is unchanged.

    Another agent (another kernel, process or browser tab) saved the session after
    this one loaded it. Reload it with `agent.load(agent_uuid)` and apply the change again.
    """

    def __init__(self, agent_uuid: str, store: str, expected: int, stored: int | None) -> None:
        self.agent_uuid = agent_uuid
        self.store = store
        """The store's repr (a SQLite store's names its file)."""
        self.expected = expected
        """The revision the save started from (`state.revision`)."""
        self.stored = stored
        """The revision the store holds, or None if the session is no longer saved."""
        holds = "no row for it (it was deleted)" if stored is None else f"revision {stored}"
        super().__init__(
            f"Session {agent_uuid!r} in {store} was saved by another writer: this save started from "
            f"revision {expected}, but the store holds {holds}. Nothing was written. Reload the session "
            f"with agent.load({agent_uuid!r}) and apply the change again."
        )

    def __reduce__(self) -> tuple[type[StaleSessionError], tuple[str, str, int, int | None]]:
        return type(self), (self.agent_uuid, self.store, self.expected, self.stored)


class CorruptSessionError(StoreError, ValueError):
    """A stored row is not JSON, or not a valid `AgentState`; it is refused, never half-loaded."""

    def __init__(self, agent_uuid: str, store: str, reason: str) -> None:
        self.agent_uuid = agent_uuid
        self.store = store
        """The store's repr (a SQLite store's names its file)."""
        self.reason = reason
        """What is wrong with the row (for a validation failure, pydantic's report)."""
        super().__init__(
            f"The saved session {agent_uuid!r} in {store} cannot be loaded: {reason}\n"
            f"The row is left as it is; remove it with store.delete({agent_uuid!r}) or restore the store "
            "from a backup."
        )

    def __reduce__(self) -> tuple[type[CorruptSessionError], tuple[str, str, str]]:
        return type(self), (self.agent_uuid, self.store, self.reason)


class UnsupportedSchemaError(StoreError, ValueError):
    """A stored session, or a store file, was written by a newer notebook_tools; it is refused."""


class WidgetError(NotebookToolsError, RuntimeError):
    """A widget cannot do this: it has no agent, a turn is running, or the kernel cannot await it."""


class MCPServerError(NotebookToolsError, RuntimeError):
    """An MCP server could not start, died, did not answer in time, or sent a request that cannot be done."""


class CassetteError(NotebookToolsError, ValueError):
    """A cassette file cannot be read or written, or there is none to replay."""


class CassetteMismatchError(CassetteError):
    """A request differs from the one the cassette recorded at that point (the message says where)."""

    def __init__(self, path: str, index: int, difference: str, *, what: str = "request") -> None:
        self.path, self.index, self.difference = path, index, difference  # index: from 0
        then = (  # an API request can be re-recorded from; the lines of a CLI's run cannot
            ", or use 'auto' with a key to re-record from this request on"
            if what == "request"
            else ": a replay cannot carry on from a line that differs"
        )
        super().__init__(
            f"Cassette {path}: {what} {index + 1} is not the one recorded: {difference}. Record the "
            f"notebook again (NOTEBOOK_TOOLS_CASSETTE=record with ANTHROPIC_API_KEY){then}."
        )


class ViewInputError(NotebookToolsError, ValueError):
    """What a view sent is refused; the reason is shown in the widget, not raised into a cell."""


class Refused(ViewInputError):
    """A view's message cannot be handled (malformed, or the agent is busy)."""


class AnswerError(ViewInputError):
    """A view's answer does not fit its prompt."""


class FileAccessError(ViewInputError):
    """A file request was refused (too large, outside the root, unknown upload, ...)."""


class TerminalSignal(NotebookToolsError):
    """A key the person pressed at the terminal's input (never KeyboardInterrupt, which asyncio re-raises)."""


class CtrlC(TerminalSignal):
    """Ctrl+C: the running turn stops, or the input line clears."""


class EndOfInput(TerminalSignal):
    """Ctrl+D, or the end of piped input: the person leaves."""


class Skip(TerminalSignal):
    """Escape or /skip at a prompt: the prompt is skipped."""


class InvalidInput(ViewInputError):
    """What the person typed at the terminal does not parse (a number, an option, an argument)."""


class AgentSpecError(ConfigurationError):
    """A `python -m notebook_tools chat --agent` spec names no callable, or its callable builds no `Agent`."""


class FileNotChosenError(NotebookToolsError, KeyError):
    """No chosen file has that saved path, or several have that name (`chat.files[key]`)."""


class HTTPRefusal(ViewInputError):
    """An HTTP request is refused with a status (4xx) and a JSON body; nothing changed."""

    def __init__(self, status: int, message: str, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = details


class CheckpointTooLarge(NotebookToolsError):
    """A checkpoint alone would exceed the undo budget: nothing was kept, the run cannot be undone."""

    def __init__(self, names: Iterable[str], size: int, budget: int) -> None:
        self.names = tuple(names)
        self.size = size
        """The bytes the checkpoint would hold."""
        self.budget = budget
        super().__init__(
            f"A checkpoint of {', '.join(self.names)} would hold about {size:,} bytes, over the undo "
            f"budget of {budget:,} bytes: a run that changes them cannot be undone."
        )


class UnknownCheckpoint(NotebookToolsError, KeyError):
    """No checkpoint of this history has that id; the history is unchanged."""

    def __init__(self, checkpoint_id: str, known: Iterable[str], dropped: Iterable[str] = ()) -> None:
        super().__init__(checkpoint_id)
        self.checkpoint_id = checkpoint_id
        self.known = tuple(known)
        self.dropped = checkpoint_id in set(dropped)
        """Whether the checkpoint existed and was let go for the budget."""

    def __str__(self) -> str:
        why = " (it was let go to stay within the undo budget)" if self.dropped else ""
        return (
            f"No checkpoint {self.checkpoint_id!r} to go back to{why}. "
            f"Checkpoints: {', '.join(self.known) or 'none'}."
        )


class CheckpointFileError(NotebookToolsError):
    """A checkpoint kept on disk cannot be read back (missing, corrupt, not ours): nothing was undone."""

    def __init__(self, checkpoint_id: str, problem: str, newer: Iterable[str] = ()) -> None:
        self.checkpoint_id = checkpoint_id
        self.problem = problem
        """What is wrong with its file, in a sentence."""
        self.newer = tuple(newer)
        """Checkpoints newer than it, which can still be undone."""
        super().__init__(checkpoint_id, problem, self.newer)

    def __str__(self) -> str:
        newer = f" Newer checkpoints can still be undone: {', '.join(self.newer)}." if self.newer else ""
        return (
            f"Checkpoint {self.checkpoint_id} cannot be restored from disk: {self.problem}. "
            f"Nothing was undone; the history is unchanged.{newer}"
        )
