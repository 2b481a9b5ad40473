"""Answers that come after a prompt's first one, or after it closed: which of them to report.

A front end stamps each answer with the time it was sent (`at`), so a double submit or a
stale card's ack differs only in that stamp: the same answer again is dropped quietly, as is
a stale ack for a prompt that already closed (timed out, cancelled, answered in an earlier
run). A different second answer for an answered prompt, an answer for an unknown prompt, and
a person's answer that came after the turn moved on past its timeout are worth reporting (a
prompt past its timeout whose pause still waits takes the answer: see `_waiting.LateWindow`).
Nothing here imports Jupyter.
"""

from __future__ import annotations

from typing import Any

from ..events._prompt import Prompt

__all__ = ["ANSWERED_BEFORE", "NOT_TAKEN", "late_answer", "unstamped"]

NOT_TAKEN: Any = object()
"""No answer was taken for the prompt yet."""
ANSWERED_BEFORE: Any = object()
"""The prompt was answered before (e.g. before a restart); its answer is not known."""


def unstamped(answer: Any) -> Any:
    """An answer without the time the front end sent it, for comparing answers."""
    return {k: v for k, v in answer.items() if k != "at"} if isinstance(answer, dict) else answer


def late_answer(tool_use_id: str, prompt: Prompt | None, taken: Any, answer: Any) -> tuple[str, bool] | None:
    """Why `answer` comes too late and whether to report it, or None when its prompt awaits it."""
    if taken is not NOT_TAKEN:
        reason = f"a second answer for {tool_use_id!r} was ignored: it was already answered"
        return reason, taken is not ANSWERED_BEFORE and unstamped(taken) != unstamped(answer)
    if prompt is None:
        return f"the answer for {tool_use_id!r} was ignored: that prompt is unknown", True
    person = isinstance(answer, dict) and "value" in answer and "status" not in answer  # not an ack
    if prompt.status == "timed_out" and person:
        return (
            f"the answer for {tool_use_id!r} came too late: its {prompt.timeout or 0:g} s had run out and "
            "the conversation moved on, so the model was told nobody answered. Tell it in a message instead.",
            True,
        )
    if prompt.status != "pending":
        state = prompt.status.replace("_", " ")
        return f"the answer for {tool_use_id!r} was ignored: that prompt is {state}", False
    return None
