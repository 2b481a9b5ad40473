"""Checking what `Agent.resume` is given, before anything changes.

Answers to frontend calls and approval decisions follow the same rule: exactly
one per pending call, no more, no less, no repeats. Everything here is pure: it
reads the state and raises, so a refused `resume` leaves state and store as
they were and sends nothing.
"""

from __future__ import annotations

import collections
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import pydantic

from .._exceptions import InvalidToolResultError, ToolResultIdsError
from ..tools._approvals import ApprovalDecision
from ..tools._tool import Tool
from ._state import AgentState, ToolResult

__all__ = ["check_decisions", "check_results"]


def _require_exact_ids(
    pending: set[str], given: list[str], state: AgentState, *, nothing_pending: bool, partial: bool
) -> None:
    """Exactly the pending ids (or, `partial`, a non-empty subset of them), each once."""
    counts = collections.Counter(given)
    extra = set(counts) - pending
    missing = set() if partial else pending - set(counts)
    empty = partial and not counts
    if nothing_pending or extra or missing or empty or any(c > 1 for c in counts.values()):
        known = set(state.last_tool_use_ids())
        raise ToolResultIdsError(
            missing=missing if not empty else pending,
            unknown=extra - known,
            not_pending=extra & known,
            duplicate=[i for i, c in counts.items() if c > 1],
            nothing_pending=nothing_pending,
        )


def _ident(item: Any) -> str:
    return (
        str(item.get("tool_use_id", "?"))
        if isinstance(item, Mapping)
        else str(getattr(item, "tool_use_id", "?"))
    )


def _why(exc: Exception) -> str:
    """What is wrong, in a few words per field (not pydantic's report, which names its internals)."""
    if not isinstance(exc, pydantic.ValidationError):
        return str(exc)
    errors = exc.errors(include_url=False, include_input=False, include_context=False)
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'the value'}: {e['msg']}" for e in errors[:3])


def check_results(
    state: AgentState,
    items: Iterable[ToolResult | Mapping[str, Any]],
    tools: Mapping[str, Tool],
    max_chars: int,
    *,
    partial: bool = False,
    checked: Collection[str] = (),
) -> list[ToolResult]:
    """The answers to the pending frontend calls: exact ids, valid content, within size and output schema.

    With `partial`, answers to some of the pending calls (at least one) are enough.
    """
    given: list[ToolResult] = []
    for item in items:
        try:
            given.append(item if isinstance(item, ToolResult) else ToolResult.model_validate(dict(item)))
        except (pydantic.ValidationError, TypeError, ValueError) as exc:
            raise InvalidToolResultError(_ident(item), f"not a valid tool result ({_why(exc)})") from None
    pending = {p.tool_use_id: p for p in state.pending_frontend_tools}
    ids = [r.tool_use_id for r in given]
    _require_exact_ids(set(pending), ids, state, nothing_pending=not pending, partial=partial)
    for result in given:
        size = result.text_size()
        if size > max_chars:
            raise InvalidToolResultError(
                result.tool_use_id, f"{size} characters is over the limit of {max_chars}"
            )
        if not result.is_error and result.tool_use_id not in checked:  # `checked`: on their rich data
            errors = tools[pending[result.tool_use_id].name].output_errors(result.content)
            if errors:
                raise InvalidToolResultError(result.tool_use_id, "; ".join(errors))
    return given


def check_decisions(
    state: AgentState,
    items: Iterable[ToolResult | ApprovalDecision | Mapping[str, Any]],
    tools: Mapping[str, Tool],
    *,
    partial: bool = False,
) -> list[ApprovalDecision]:
    """The decisions on the pending approvals: exact ids, and edited arguments that fit the input schema.

    With `partial`, decisions on some of the pending approvals (at least one) are enough.
    """
    decisions: list[ApprovalDecision] = []
    for item in items:
        try:
            decisions.append(
                item if isinstance(item, ApprovalDecision) else ApprovalDecision.model_validate(dict(item))
            )
        except (pydantic.ValidationError, TypeError, ValueError) as exc:
            reason = f"approvals are pending: not a valid approval decision ({_why(exc)})"
            raise InvalidToolResultError(_ident(item), reason) from None
    pending = {p.tool_use_id: p for p in state.pending_approvals}
    ids = [d.tool_use_id for d in decisions]
    _require_exact_ids(set(pending), ids, state, nothing_pending=False, partial=partial)
    for decision in decisions:
        if decision.edited_input is not None:
            errors = tools[pending[decision.tool_use_id].name].input_errors(decision.edited_input)
            if errors:
                raise InvalidToolResultError(decision.tool_use_id, "edited arguments: " + "; ".join(errors))
    return decisions
