"""Turning what a person answered, in any front end, into a checked `ToolResult`.

Answers are untrusted input: each prompt kind accepts one shape and nothing else,
and a refused answer leaves the prompt pending with the reason shown.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NamedTuple

import pydantic

from .._exceptions import AnswerError
from ..events._prompt import PromptKind
from ..session._state import ToolResult
from ..tools._approvals import ApprovalDecision
from ..tools._schemas import error_lines, validator
from ..tools._tool import Tool
from ._file_content import accepts, content_for_files
from ._files import FileAccessError, FileInbox

__all__ = ["ACKS", "SKIPPED", "AnswerError", "Taken", "failed_text", "is_skip", "timed_out_text", "to_result"]

ACKS: dict[str, Literal["success", "failed", "timeout"]] = dict(
    answered="success", skipped="success", failed="failed", timed_out="timeout"
)
"""The ack each way a prompt ends in."""


class Taken(NamedTuple):
    """An answer that passed its prompt's checks, not final until settled."""

    result: ToolResult
    shown: str
    status: Any
    ack: Literal["success", "failed", "timeout"]
    output: Any
    error_text: str


SKIPPED = "Skipped by the user: they chose not to answer this."
_SKIP_PREFIX = "Skipped by the user:"


def is_skip(result: ToolResult) -> bool:
    """Whether a result says the person skipped the prompt (every skip text starts the same way)."""
    return result.is_error and isinstance(result.content, str) and result.content.startswith(_SKIP_PREFIX)


MAX_REASON_CHARS = 2000
"""The most of a skip reason or a front end's error text that reaches the model."""


def capped(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit:,} more characters]"


def skipped_text(tool: Tool | None, reason: object = None) -> str:
    """What the model is told when the person skips: their reason, else the tool's own or the usual text."""
    if isinstance(reason, str) and reason.strip():
        return f"{_SKIP_PREFIX} {capped(reason.strip())}"
    if tool is not None and tool.renderer is not None and tool.renderer.skipped:
        return f"{_SKIP_PREFIX} {tool.renderer.skipped}"
    return SKIPPED


def timed_out_text(seconds: float | None) -> str:
    """What the model is told when nobody answered in time."""
    return (
        "The user did not answer in time."
        if seconds is None
        else (f"The user did not answer within {seconds:g} seconds.")
    )


def failed_text(name: str, error: str) -> str:
    """What the model is told when the front end could not run the tool."""
    return f"The frontend could not run '{name}': {error}"


def to_result(
    kind: PromptKind,
    tool_use_id: str,
    arguments: dict[str, Any],
    answer: Any,
    files: FileInbox,
    tool: Tool | None = None,
    *,
    name: str = "",
    timeout: float | None = None,
) -> tuple[ToolResult, str, str]:
    """The tool result for an answer (an ack), a short text showing it, and the prompt's new status.

    An answer is `{"value": ...}` or `{"skip": true}`, or an ack in its long form:
    `{"status": "success", "output": ...}`, `{"status": "failed", "error_text": ...}`,
    `{"status": "timeout"}` (the front end's own timer ran out).

    Raises:
        AnswerError: the answer has the wrong shape for this prompt.
    """
    if not isinstance(answer, dict):
        raise AnswerError("an answer must be an object with 'value' or 'skip'")
    status = answer.get("status")
    if status == "failed":
        error = answer.get("error_text")
        if not isinstance(error, str) or not error:
            raise AnswerError("a failed ack needs an 'error_text'")
        error = capped(error)
        return (
            ToolResult(tool_use_id=tool_use_id, content=failed_text(name, error), is_error=True),
            error,
            "failed",
        )
    if status == "timeout":
        return (
            ToolResult(tool_use_id=tool_use_id, content=timed_out_text(timeout), is_error=True),
            "",
            "timed_out",
        )
    if status == "success":
        if "output" not in answer:
            raise AnswerError("a success ack needs an 'output'")
        answer = {"value": answer["output"]}
    elif status is not None:
        raise AnswerError(f"unknown ack status {status!r}; use 'success', 'failed' or 'timeout'")
    if answer.get("skip") is True:
        content = skipped_text(tool, answer.get("reason"))
        shown = content.removeprefix(_SKIP_PREFIX).strip() if content != SKIPPED else "skipped"
        return ToolResult(tool_use_id=tool_use_id, content=content, is_error=True), shown, "skipped"
    if "value" not in answer:
        raise AnswerError("an answer must have a 'value' (or 'skip': true)")
    result, shown = _answered(kind, tool_use_id, arguments, answer["value"], files, tool)
    return result, shown, "answered"


def _answered(
    kind: PromptKind,
    tool_use_id: str,
    arguments: dict[str, Any],
    value: Any,
    files: FileInbox,
    tool: Tool | None,
) -> tuple[ToolResult, str]:
    if kind == "confirm":
        if value not in ("yes", "no"):
            raise AnswerError("a confirm answer must be 'yes' or 'no'")
        label = arguments.get("confirm_label" if value == "yes" else "deny_label") or value.capitalize()
        return ToolResult(tool_use_id=tool_use_id, content=value), str(label)
    if kind == "generic" and not isinstance(value, str):  # an ack's JSON output (an object, a number...)
        return _custom(tool_use_id, arguments, value, tool)
    if kind in ("text", "generic"):
        if not isinstance(value, str):
            raise AnswerError("a text answer must be a string")
        if tool is not None and (errors := tool.output_errors(value)):
            raise AnswerError("; ".join(errors))
        return ToolResult(tool_use_id=tool_use_id, content=value), value
    if kind == "select":
        return _select(tool_use_id, arguments, value)
    if kind == "custom":
        return _custom(tool_use_id, arguments, value, tool)
    if kind == "approval":
        return _approval(tool_use_id, arguments, value, tool)
    return _file(tool_use_id, arguments, value, files)


def _select(tool_use_id: str, arguments: dict[str, Any], value: Any) -> tuple[ToolResult, str]:
    options = list(arguments.get("options", []))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnswerError("a select answer must be a list of option strings")
    unknown = [v for v in value if v not in options]
    if unknown:
        raise AnswerError(f"not among the options: {', '.join(map(repr, unknown))}")
    if len(set(value)) != len(value):
        raise AnswerError("an option was chosen twice")
    if arguments.get("multiple"):
        if not value:
            raise AnswerError("choose at least one option")
        return ToolResult(tool_use_id=tool_use_id, content=json.dumps(value)), ", ".join(value)
    if len(value) != 1:
        raise AnswerError("choose exactly one option")
    return ToolResult(tool_use_id=tool_use_id, content=value[0]), value[0]


def _custom(
    tool_use_id: str, arguments: dict[str, Any], value: Any, tool: Tool | None
) -> tuple[ToolResult, str]:
    """A renderer's answer: the value checked by the output schema, then as text (non-strings as JSON)."""
    renderer = tool.renderer if tool is not None else None
    if renderer is not None and renderer.describe is not None and renderer.output_schema is not None:
        # A built-in: its ack's output has a shape of its own; the model reads what the browser did.
        if renderer.validator is None:
            renderer.validator = validator(renderer.output_schema)
        if errors := error_lines(renderer.validator, value):
            raise AnswerError("; ".join(errors))
        text = renderer.describe(arguments, value)
        return ToolResult(tool_use_id=tool_use_id, content=text), text
    if tool is not None and (errors := tool.output_value_errors(value)):
        raise AnswerError("; ".join(errors))
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return ToolResult(tool_use_id=tool_use_id, content=text), text


def _file(
    tool_use_id: str, arguments: dict[str, Any], value: Any, files: FileInbox
) -> tuple[ToolResult, str]:
    if not isinstance(value, dict):
        raise AnswerError("a file answer must be an object with 'uploads' or 'paths'")
    uploads, paths = value.get("uploads", []), value.get("paths", [])
    if not isinstance(uploads, list) or not isinstance(paths, list):
        raise AnswerError("'uploads' and 'paths' must be lists")
    if not all(isinstance(x, str) for x in [*uploads, *paths]):
        raise AnswerError("upload ids and paths must be strings")
    count = len(uploads) + len(paths)
    if count == 0:
        raise AnswerError("choose a file")
    if count > 1 and not arguments.get("multiple"):
        raise AnswerError("this prompt takes one file")
    try:
        records = [files.uploaded(u, tool_use_id) for u in uploads] + [files.workspace_file(p) for p in paths]
    except FileAccessError as exc:
        raise AnswerError(str(exc)) from None
    accept = str(arguments.get("accept") or "")
    refused = [r.name for r in records if not accepts(accept, r.name, r.media_type)]
    if refused:
        raise AnswerError(f"{', '.join(refused)} is not an accepted type ({accept})")
    files.stage(tool_use_id, records)  # they join `chat.files` once the answer stands
    content = content_for_files(records)
    return ToolResult(tool_use_id=tool_use_id, content=content), ", ".join(r.name for r in records)


def _approval(
    tool_use_id: str, arguments: dict[str, Any], value: Any, tool: Tool | None
) -> tuple[ToolResult, str]:
    """An approval card's answer, carried as the decision's JSON (turned back into a decision by the chat)."""
    if not isinstance(value, dict) or not isinstance(value.get("approved"), bool):
        raise AnswerError("an approval answer must be an object with 'approved': true or false")
    try:
        decision = ApprovalDecision(
            tool_use_id=tool_use_id, **{k: v for k, v in value.items() if k != "tool_use_id"}
        )
    except (pydantic.ValidationError, TypeError) as exc:
        raise AnswerError(f"not a valid approval: {exc}") from None
    if decision.edited_input is not None and tool is not None and not tool.edits_approved:
        if decision.edited_input != arguments:
            raise AnswerError("this call runs only as it was asked: approve or deny it (no edited arguments)")
        decision = decision.model_copy(update={"edited_input": None})
    if (
        decision.edited_input is not None
        and tool is not None
        and (errors := tool.input_errors(decision.edited_input))
    ):
        raise AnswerError("the edited arguments do not fit the tool: " + "; ".join(errors))
    scope = tool.scope_for(arguments) if tool is not None else None
    if decision.remember == "scope" and scope is None:
        raise AnswerError("this call has no kind to remember: remember its arguments or the tool")
    if not decision.approved:
        shown = f"Denied: {decision.reason}" if decision.reason else "Denied"
    elif decision.edited_input is not None and decision.edited_input != arguments:
        shown = f"Approved with edits: {json.dumps(decision.edited_input)}"
    else:
        shown = "Approved"
    if decision.remember:
        covered = {"arguments": "these arguments", "tool": "this tool"}.get(decision.remember)
        shown += f" (remembered for this session: {covered or (scope.label if scope else '')})"
    return ToolResult(tool_use_id=tool_use_id, content=decision.model_dump_json()), shown
