"""AG-UI interrupts: approvals as interrupts, and `resume` entries as answers.

As AG-UI 1.0 has it, a call waiting for approval is an interrupt, `confirmation:<tool_use_id>`
(reason "confirmation"; the answer is `{"approved", "reason"?, "editedArgs"?}` or a bare boolean;
`edited_input` is taken for `editedArgs`), and a client tool call is not: the run completes and
names it in `pendingToolCallIds`, and the client answers with a `tool` message (`pending_calls`
gives each one's response schema and expiry for the STATE_SNAPSHOT). A resume may still answer a
frontend call as `tool_call:<tool_use_id>`, as clients of the interrupts draft did. While approvals
are open they are the only open interrupts: the same reply's frontend calls open once they are decided.

A `resume` is checked against the stored session before anything runs (`plan`):
exactly the open interrupts, each once, is applied (`cancelled` answers a frontend call
with an error result "cancelled by the user" and denies an approval); entries that all
name calls answered before (a retry of a resume that was applied) change nothing and the
run reports the session as it stands; anything else is refused, naming the ids. A
`resolved` answer to a frontend call after its expiresAt is refused with 410 (the current
AG-UI text: stale resumes are errors); `cancelled` is always taken.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry

from ..session._state import AgentState, ToolResult
from ..tools._approvals import ApprovalDecision
from ..tools._tool import Tool
from ._http import HTTPRefusal

__all__ = [
    "CANCELLED",
    "Plan",
    "call_ids",
    "check_expiry",
    "interrupts_of",
    "iso_date",
    "open_ids",
    "pending_calls",
    "plan",
]

CANCELLED = "cancelled by the user"
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string", "description": "Why it was denied (the model is told)."},
        "editedArgs": {
            "type": "object",
            "description": "Full replacement of the tool's arguments. Not merged.",
        },
    },
    "required": ["approved"],
}
ANY_ANSWER: dict[str, Any] = {
    "description": "The tool's result: a string is given to the model as it is, other JSON as its JSON text."
}


def iso_date(timestamp: float) -> str | None:
    """`timestamp` as an ISO date, or None when no date can hold it (a timeout of centuries)."""
    try:
        moment = datetime.fromtimestamp(timestamp, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _args(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= 300 else text[:299] + "…"


def interrupts_of(state: AgentState, tools: Mapping[str, Tool]) -> list[Interrupt]:
    """The session's open interrupts: its approvals (frontend calls are the run's pending calls)."""
    return [
        Interrupt(
            id=f"confirmation:{p.tool_use_id}",
            reason="confirmation",
            message=f"Allow {p.name}({_args(p.input)})?",
            tool_call_id=p.tool_use_id,
            response_schema=APPROVAL_SCHEMA,
            metadata={"toolName": p.name, "arguments": p.input},
        )
        for p in state.pending_approvals
    ]


def pending_calls(state: AgentState, tools: Mapping[str, Tool]) -> list[dict[str, Any]]:
    """The client tool calls the session waits for: what to answer each with, and until when."""
    out = []
    for p in state.pending_frontend_tools:
        found = tools.get(p.name)
        schema = found.output_schema if found is not None and found.output_schema else ANY_ANSWER
        out.append(
            {
                "toolCallId": p.tool_use_id,
                "toolName": p.name,
                "responseSchema": schema,
                "expiresAt": None if p.timeout is None else iso_date(p.requested_at + p.timeout),
            }
        )
    return out


def open_ids(state: AgentState) -> list[str]:
    """The ids of the session's open interrupts."""
    if state.pending_approvals:
        return [f"confirmation:{p.tool_use_id}" for p in state.pending_approvals]
    return [f"tool_call:{p.tool_use_id}" for p in state.pending_frontend_tools]


def call_ids(history: list[dict[str, Any]]) -> set[str]:
    """The ids of every tool call the model made in `history`."""
    return {
        b["id"]
        for m in history
        if m["role"] == "assistant" and not isinstance(m["content"], str)
        for b in m["content"]
        if b.get("type") == "tool_use"
    }


def _answered_before(state: AgentState) -> set[str]:
    """Interrupt ids of calls in the history that are no longer open (their answers were applied)."""
    still = {c.tool_use_id for c in state.pending_approvals}
    still |= {c.tool_use_id for c in (*state.pending_frontend_tools, *state.deferred_frontend_tools)}
    done = call_ids(state.messages) - still
    return {f"tool_call:{i}" for i in done} | {f"confirmation:{i}" for i in done}


class Plan:
    """What a resume does: the answers to apply, or nothing (`replay`: it was applied before)."""

    def __init__(self, items: list[ToolResult | ApprovalDecision], replay: bool) -> None:
        self.items = items
        self.replay = replay


def plan(state: AgentState, entries: list[ResumeEntry]) -> Plan:
    """Check `entries` against the session's open interrupts; the answers to apply.

    Raises:
        HTTPRefusal: 422 duplicate, unknown, missing or already-answered ids (mixed with open
            ones), or an answer of the wrong shape; 410 an answer after its interrupt expired.
    """
    given = [e.interrupt_id for e in entries]
    duplicate = sorted({i for i in given if given.count(i) > 1})
    if duplicate:
        raise HTTPRefusal(422, "the resume names an interrupt more than once", duplicate=duplicate)
    wanted = open_ids(state)
    if set(given) != set(wanted):
        before = _answered_before(state)
        if given and set(given) <= before:
            return Plan([], replay=True)
        raise HTTPRefusal(
            422,
            "the resume must answer exactly the open interrupts",
            missing=[i for i in wanted if i not in given],
            unknown=[i for i in given if i not in wanted and i not in before],
            already_resolved=[i for i in given if i in before],
        )
    check_expiry(state, [e.interrupt_id for e in entries if e.status == "resolved"])
    return Plan([_answer(e) for e in entries], replay=False)


def check_expiry(state: AgentState, resolved: list[str], *, by_tool_message: bool = False) -> None:
    """Refuse (410) answers, by interrupt id, to frontend calls whose timeout passed.

    `by_tool_message`: the answers came as tool messages (an AG-UI 1.0 client, which never saw a
    `tool_call:` interrupt): the refusal names the calls by their ids and says what such a client can do.
    """
    expiry = {
        f"tool_call:{p.tool_use_id}": p.requested_at + p.timeout
        for p in state.pending_frontend_tools
        if p.timeout
    }
    now = time.time()
    expired = [i for i in resolved if expiry.get(i, now) < now]
    if expired and by_tool_message:
        calls = [i.removeprefix("tool_call:") for i in expired]
        raise HTTPRefusal(
            410,
            f"the time to answer tool call(s) {', '.join(calls)} ran out before these results came, so "
            "nothing was changed; answer each with a tool message that carries an `error` (the model is "
            "told so), or send a new message, which closes them",
            expired=calls,
        )
    if expired:
        raise HTTPRefusal(410, "these interrupts expired; resume them as cancelled", expired=expired)


def _answer(entry: ResumeEntry) -> ToolResult | ApprovalDecision:
    kind, _, tool_use_id = entry.interrupt_id.partition(":")
    payload = entry.payload
    if kind == "tool_call":
        if entry.status == "cancelled":
            return ToolResult(tool_use_id=tool_use_id, content=CANCELLED, is_error=True)
        if payload is None or payload == "":
            raise HTTPRefusal(
                422, "a resolved tool call needs a payload (its result)", interrupt_id=entry.interrupt_id
            )
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        return ToolResult(tool_use_id=tool_use_id, content=text)
    if entry.status == "cancelled":
        return ApprovalDecision(tool_use_id=tool_use_id, approved=False, reason=CANCELLED)
    if isinstance(payload, bool):
        return ApprovalDecision(tool_use_id=tool_use_id, approved=payload)
    edited = payload.get("editedArgs", payload.get("edited_input")) if isinstance(payload, dict) else None
    if (
        not isinstance(payload, dict)
        or not isinstance(payload.get("approved"), bool)
        or not isinstance(payload.get("reason", ""), str)
        or not (edited is None or isinstance(edited, dict))
    ):
        raise HTTPRefusal(
            422,
            'an approval\'s payload is {"approved": true|false, "reason"?: text, "editedArgs"?: {...}}',
            interrupt_id=entry.interrupt_id,
        )
    return ApprovalDecision(
        tool_use_id=tool_use_id,
        approved=payload["approved"],
        reason=payload.get("reason", ""),
        edited_input=edited,
    )
