"""What happens to each call the model makes, and running a backend tool.

`plan_call` decides (with the tool's approval rule, the session's remembered
approvals and the approval mode) whether a call is answered at once with an
error, run, asked of a person, or approved first. `execute` runs a backend tool
and turns whatever happens into a `ToolResult` the model can act on. Neither
changes the session: the agent applies their outcome through `_transitions`.
"""

from __future__ import annotations

import contextvars
import difflib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pydantic
from anthropic.lib.tools import ToolError

from .._exceptions import ToolFailure
from ..events import _progress as progress
from ..results import Presented, RichResult, convert, model_content
from ..session._result_content import to_result_content, truncate_content
from ..session._state import PendingFrontendTool, QueuedCall, ToolResult
from ..session._transitions import Plan
from ..tools._approvals import ApprovalMode, Blocked, PendingApproval, RememberedApproval
from ..tools._plugins import Augmented
from ..tools._tool import Tool

__all__ = [
    "Executed",
    "Verdict",
    "current_tool_use_id",
    "execute",
    "judge",
    "plan_call",
    "unknown_tool_text",
    "with_edit_note",
]

log = logging.getLogger("notebook_tools")
_CURRENT_CALL: contextvars.ContextVar[str | None] = contextvars.ContextVar("nt_tool_use_id", default=None)


def current_tool_use_id() -> str | None:
    """The `tool_use_id` of the backend call being run (None outside a tool).

    A call that runs again after a crash (backend calls run at least once) has the same id, so a
    tool with side effects can record it with its effect and skip a call it has already done.
    """
    return _CURRENT_CALL.get()


TRUNCATED_CALL = (
    "This call was not run: your reply reached max_tokens before its arguments were complete. "
    "Call the tool again."
)
CUT_AFTER_CALL = (
    "This call was not run: your reply was cut off at max_tokens after it. Call the tool again if you "
    "still need it."
)
INVALID_ARGUMENTS = "This call was not run: its arguments were not a JSON object ({}). Call the tool again."

Verdict = tuple[Literal["run", "ask", "refuse"], str, str]
"""What the approval rule says: run / ask / refuse, the audit decision, and the reason."""


def unknown_tool_text(name: str, tools: dict[str, Tool]) -> str:
    """What the model is told when it calls a tool it was not offered."""
    known = ", ".join(t.name for t in tools.values() if t.mode != "manual") or "none"
    return f"Unknown tool {name!r}. Available tools: {known}."


async def judge(
    found: Tool, arguments: dict[str, Any], mode: ApprovalMode, remembered: list[RememberedApproval]
) -> Verdict:
    """Apply the tool's `needs_approval` rule and the approval mode to one set of arguments.

    A rule that raises refuses the call (a broken safety rule must not let a call through).
    """
    try:
        verdict = await found.needs_approval_for(arguments)
    except Exception as exc:
        log.warning("approval rule of %s raised", found.name, exc_info=True)
        return "refuse", "blocked", f"its approval rule failed ({type(exc).__name__}: {exc})"
    if isinstance(verdict, Blocked):
        return "refuse", "blocked", verdict.reason
    if not verdict:
        return "run", "", ""
    scope = found.scope_for(arguments)
    if any(rule.covers(found.name, arguments, scope.key if scope else None) for rule in remembered):
        return "run", "auto_approved", "remembered for this session"
    if mode == "approve_all":
        return "run", "auto_approved", "approval_mode='approve_all'"
    if mode == "auto_deny":
        return "refuse", "auto_denied", "approval_mode='auto_deny'"
    return "ask", "", ""


async def plan_call(
    block: dict[str, Any],
    tools: dict[str, Tool],
    mode: ApprovalMode,
    remembered: list[RememberedApproval],
    *,
    not_run: str | None = None,
) -> tuple[Plan, tuple[str, str] | None]:
    """The plan for one `tool_use` block, and the audit entry (decision, reason) it needs, if any.

    `not_run`: the call is answered with this error at once (a reply cut off, arguments that did not parse).
    """
    tool_use_id, name, arguments = block["id"], block["name"], block.get("input", {})

    def error(text: str) -> ToolResult:
        return ToolResult(tool_use_id=tool_use_id, content=text, is_error=True)

    if not_run is not None:
        return error(not_run), None
    found = tools.get(name)
    if found is None or found.mode == "manual":
        return error(unknown_tool_text(name, tools)), None
    errors = found.input_errors(arguments)
    if errors:
        text = f"Invalid input for tool {name!r}: " + "; ".join(errors) + ". Fix the input and call again."
        return error(text), None
    action, decision, reason = await judge(found, arguments, mode, remembered)
    audit = (decision, reason) if decision else None
    if action == "refuse":
        if decision == "auto_denied":
            return error("This call needs approval, and approvals are switched off (denied)."), audit
        return error(f"This call is not allowed: {reason}"), audit
    if action == "ask":
        return PendingApproval(
            tool_use_id=tool_use_id, name=name, input=arguments, description=found.description
        ), None
    if found.executor == "frontend":
        return PendingFrontendTool(
            tool_use_id=tool_use_id, name=name, input=arguments, timeout=found.timeout
        ), audit
    return QueuedCall(tool_use_id=tool_use_id, name=name, input=arguments), audit


@dataclass(frozen=True)
class Executed:
    """A backend call's result, what the person is shown when it is richer, and the live value."""

    result: ToolResult
    shown: RichResult | None = None
    value: Any = None
    failure: ToolFailure | None = None
    """The typed failure the tool raised, if it did."""


async def execute(
    found: Tool,
    tool_use_id: str,
    arguments: dict[str, Any],
    max_chars: int,
    emit: Callable[[Any], None] | None = None,
) -> Executed:
    """Run a backend tool; exceptions become error results the model can act on.

    `emit` receives the tool's progress, step and preview events (see `nt.reporter()`).
    """
    name = found.name

    def error(text: str, failure: ToolFailure | None = None) -> Executed:
        return Executed(ToolResult(tool_use_id=tool_use_id, content=text, is_error=True), failure=failure)

    token = _CURRENT_CALL.set(tool_use_id)  # sync tools see it too: to_thread copies the context
    reports = progress.reporting(progress.Reporter(tool_use_id, emit))
    try:
        value = await found.invoke(arguments)
    except pydantic.ValidationError as exc:
        details = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
        return error(f"Invalid input for tool {name!r}: {details}.")
    except ToolError as exc:
        blocks: Any = exc.content if isinstance(exc.content, str) else list(exc.content)
        try:
            return Executed(ToolResult(tool_use_id=tool_use_id, content=blocks, is_error=True))
        except pydantic.ValidationError:
            return error(f"Tool {name!r} failed: {preview(blocks)}")
    except ToolFailure as failure:
        return error(failure.model_text(), failure)
    except Exception as exc:
        log.info("tool %s raised", name, exc_info=True)
        return error(f"Tool {name!r} failed: {type(exc).__name__}: {exc}")
    finally:
        _CURRENT_CALL.reset(token)
        progress.reset(reports)
    change = None
    if isinstance(value, Augmented):  # the tool also changes the tool set (applied by the agent)
        value, change = value.value, value.augmentation
        if isinstance(value, Augmented):
            return error(f"Tool {name!r} returned nt.Augmented inside nt.Augmented; give one change")
    try:
        rich: RichResult | None
        if isinstance(value, Presented):  # the model's content and the person's view, given apart
            rich, content, value = value.shown, None, value.content
        else:
            rich = convert(value)
            content = model_content(rich, max_chars) if rich is not None else None
    except Exception as exc:
        return error(f"Tool {name!r} returned a value that could not be shown: {type(exc).__name__}: {exc}")
    if content is None:
        content = truncate_content(to_result_content(value), max_chars)
    try:
        result = ToolResult(tool_use_id=tool_use_id, content=content, augmentation=change)
    except pydantic.ValidationError as exc:  # blocks the API would refuse: tell the model, never send them
        return error(f"Tool {name!r} returned content the API would refuse: {exc.errors()[0]['msg']}")
    return Executed(result, rich, value)


def preview(value: Any) -> str:
    """A short JSON-or-str form of a value, for error texts."""
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = str(value)
    return text[:500]


def with_edit_note(result: ToolResult, original: dict[str, Any], edited: dict[str, Any]) -> ToolResult:
    """State both argument sets, so the model is not misled about what ran."""
    note = edit_note(original, edited)
    content: Any = (
        f"{note}\nResult: {result.content}"
        if isinstance(result.content, str)
        else [{"type": "text", "text": note}, *result.content]
    )
    return result.model_copy(update={"content": content})


def edit_note(original: dict[str, Any], edited: dict[str, Any]) -> str:
    """What the model is told of a person's edit: both argument sets, or a diff for a long text.

    A text of several lines (code, a query) that changed is shown as it ran, marked against what was
    asked, in a diff with the whole text as context: every line as it ran appears once ("+" the person's, "-"
    the model's, none unchanged), so the model knows exactly what ran without reading the code twice.
    """
    lines = [
        key
        for key in {**original, **edited}
        if isinstance(original.get(key), str)
        and isinstance(edited.get(key), str)
        and original[key] != edited[key]
        and ("\n" in original[key] or "\n" in edited[key])
    ]
    said = "The user edited the arguments before approving."
    if not lines:
        return f"{said} You asked for {_json(original)}; it ran with {_json(edited)}."
    parts = [said]
    for key in lines:
        before, after = original[key].splitlines(), edited[key].splitlines()
        whole = max(len(before), len(after))
        names = f"{key} (you asked)", f"{key} (it ran)"
        diff = difflib.unified_diff(before, after, *names, n=whole, lineterm="")
        parts.append(f"`{key}` as it ran, against what you asked for:\n```diff\n" + "\n".join(diff) + "\n```")
    rest_before = {k: v for k, v in original.items() if k not in lines}
    rest_after = {k: v for k, v in edited.items() if k not in lines}
    if rest_before != rest_after:
        parts.append(
            f"The other arguments: you asked for {_json(rest_before)}; it ran with {_json(rest_after)}."
        )
    return "\n".join(parts)


def _json(value: Any) -> str:
    return json.dumps(value, default=str)
