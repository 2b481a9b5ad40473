"""What a person is told when a turn ends early: a refusal, a cut-off reply, a full window, a long pause."""

from __future__ import annotations

from typing import Any

from ..events._events import TurnNotice

__all__ = ["MAX_PAUSES", "advice_for", "notice_for"]

MAX_PAUSES = 8
"""Paused server-tool turns one call continues by itself before it returns "pause_turn"."""


def notice_for(stop_reason: str, stop_details: dict[str, Any] | None, max_tokens: int) -> TurnNotice | None:
    """The notice for a turn that ended for `stop_reason`, or None when the turn simply ended."""
    details = stop_details or {}
    if stop_reason == "refusal":
        category = details.get("category")
        explanation = str(details.get("explanation") or "")
        detail = f"{explanation} (category: {category})" if category and explanation else explanation
        if category and not explanation:
            detail = f"Category: {category}."
        return TurnNotice(
            stop_reason=stop_reason,
            title="Claude declined this request.",
            detail=detail,
            advice=(
                "The refused message was set aside: your next message continues from before it. "
                "Rephrase the request, or ask something else."
            ),
            stop_details=stop_details,
        )
    if stop_reason == "max_tokens":
        return TurnNotice(
            stop_reason=stop_reason,
            title=f"The reply was cut off at max_tokens ({max_tokens} tokens).",
            advice=(
                f"Continue lets Claude carry on where it stopped; for longer replies raise max_tokens "
                f"(agent.max_tokens = {max_tokens * 2})."
            ),
            actions=["continue"],
        )
    if stop_reason == "model_context_window_exceeded":
        return TurnNotice(
            stop_reason=stop_reason,
            title="The conversation filled the model's context window; the reply was cut off.",
            advice=(
                "Give the agent a context budget (nt.Agent(context=nt.ContextBudget(...))) so old tool "
                "results are cleared and the conversation compacted, or start a new session."
            ),
            actions=["continue"],
        )
    if stop_reason == "pause_turn":
        return TurnNotice(
            stop_reason=stop_reason,
            title=f"Claude paused a long server-tool turn {MAX_PAUSES} times in a row.",
            advice="Continue lets it go on from where it paused.",
            actions=["continue"],
        )
    return None


def advice_for(stop_reason: str, stop_details: dict[str, Any] | None, max_tokens: int) -> str:
    """The notice's title and advice as one text, for `RunResult.advice` ("" when the turn simply ended)."""
    notice = notice_for(stop_reason, stop_details, max_tokens)
    if notice is None:
        return ""
    return " ".join(part for part in (notice.title, notice.detail, notice.advice) if part)
