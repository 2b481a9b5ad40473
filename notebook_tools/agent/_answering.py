"""The agent's answer handling: answers and approval decisions checked, resolved and applied.

`_checks` refuses anything wrong before a change; edited approval arguments are judged again
by the tool's own rule; the outcome is one transition, saved before it is adopted.
"""

from __future__ import annotations

import time
from typing import Any

from .._exceptions import InvalidToolResultError
from ..events._events import ToolCompleted, ToolErrorEvent
from ..results import RichResult, model_content
from ..session import _transitions as tr
from ..session._checks import check_decisions, check_results
from ..session._state import PendingFrontendTool, QueuedCall, ToolResult
from ..tools._approvals import ApprovalDecision, RememberedApproval
from ._settings import Settings
from ._tool_calls import judge
from ._toolset_control import ToolsetControl
from ._writer import SessionWriter

__all__ = ["Answering"]


class Answering:
    """Taking a person's answers and decisions into the session.

    Args:
        writer: The session's writer.
        control: The agent's tool-set control (tools, and the changes an answer may carry).
        settings: The agent's settings (`max_result_chars`).
    """

    def __init__(self, writer: SessionWriter, control: ToolsetControl, settings: Settings) -> None:
        self.writer = writer
        self.control = control
        self.settings = settings

    async def apply(self, items: list[Any], *, complete: bool) -> None:
        """Check answers or decisions against the pending calls, then apply and save them."""
        writer, tools = self.writer, self.control.tools
        state = writer.state
        if state.pending_approvals:
            decisions = check_decisions(state, items, tools, partial=not complete)
            decided = [await self._resolve(d) for d in decisions]
            await writer.commit(tr.decide(state, decided))
            asked_for = {p.tool_use_id: p for p in state.pending_approvals}
            for decision in decisions:
                asked = asked_for[decision.tool_use_id]
                edited = decision.edited_input is not None and decision.edited_input != asked.input
                verdict = "denied" if not decision.approved else ("edited" if edited else "approved")
                arguments = decision.edited_input if edited and decision.approved else asked.input
                writer.audit(asked.tool_use_id, asked.name, arguments or {}, verdict, decision.reason)
            for done in decided:  # a denial is the call's end: every front end shows it so
                if isinstance(done.outcome, ToolResult):
                    name, text = asked_for[done.tool_use_id].name, str(done.outcome.content)
                    await writer.publish(ToolErrorEvent(tool_use_id=done.tool_use_id, name=name, error=text))
            return
        pending = {p.tool_use_id: p for p in state.pending_frontend_tools}
        max_chars = self.settings.max_result_chars
        items, shown = rich_answers(items, max_chars)
        for tool_use_id, answered in shown.items():  # the output schema applies to the data, not its text
            waiting = pending.get(tool_use_id)
            found = tools.get(waiting.name) if waiting is not None else None
            if found is not None and (errors := found.output_value_errors(answer_value(answered))):
                raise InvalidToolResultError(tool_use_id, "; ".join(errors))
        results = check_results(state, items, tools, max_chars, partial=not complete, checked=set(shown))
        toolset, changes = state.toolset, []
        for k, result in enumerate(results):
            # A change given with the answer is the answerer's: refused, it refuses the answers (nothing
            # changed). One from the tool's augment= function is the author's: refused, the model is told.
            given = result.augmentation is not None
            result = self.control.hooked(result, pending[result.tool_use_id].name)
            results[k], toolset, events = self.control.augmented(toolset, result, strict=given)
            changes += events
        await writer.commit(tr.answer(tr.set_toolset(state, toolset), results))
        for result in results:
            call = pending[result.tool_use_id]
            duration = time.time() - call.requested_at
            rich = shown.get(call.tool_use_id)
            event = ToolCompleted(
                tool_use_id=call.tool_use_id, name=call.name, result=result, duration=duration, shown=rich
            )
            await writer.publish(event)
        for change in changes:
            await writer.publish(change)

    async def _resolve(self, decision: ApprovalDecision) -> tr.Decided:
        """What one decision does; edited arguments are judged again by the tool's approval rule."""
        call = next(p for p in self.writer.state.pending_approvals if p.tool_use_id == decision.tool_use_id)
        found = self.control.tools[call.name]
        remember = None
        if decision.remember == "scope" and decision.approved:
            scope = found.scope_for(call.input)  # checked with the answer: the tool has one for it
            if scope is not None:
                remember = RememberedApproval(tool=call.name, scope=scope.key, label=scope.label)
        elif decision.remember is not None and decision.approved:
            remember = RememberedApproval(
                tool=call.name, input=call.input if decision.remember == "arguments" else None
            )
        if not decision.approved:
            reason = f" Reason: {decision.reason}" if decision.reason else ""
            denial = ToolResult(
                tool_use_id=call.tool_use_id, content=f"The user denied this call.{reason}", is_error=True
            )
            return tr.Decided(call.tool_use_id, denial, remember)
        arguments = decision.edited_input if decision.edited_input is not None else call.input
        edited = arguments != call.input
        if edited:
            action, _, why = await judge(found, arguments, "approve_all", [])
            if action == "refuse":
                raise InvalidToolResultError(  # the card shows `reason` as is: a sentence for a person
                    call.tool_use_id,
                    f"That edit is not allowed: {why}. Change the arguments, or approve or deny the call "
                    "as it was.",
                )
        if found.executor == "frontend":
            outcome: Any = PendingFrontendTool(
                tool_use_id=call.tool_use_id, name=call.name, input=arguments, timeout=found.timeout
            )
        else:
            outcome = QueuedCall(
                tool_use_id=call.tool_use_id,
                name=call.name,
                input=arguments,
                original_input=call.input if edited else None,
            )
        return tr.Decided(call.tool_use_id, outcome, remember)


def rich_answers(items: list[Any], max_chars: int) -> tuple[list[Any], dict[str, RichResult]]:
    """Answers whose `content` is a `RichResult`, in the model's compact form; and what the person sees."""
    out, shown = [], {}
    for item in items:
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, RichResult):
            shown[str(item.get("tool_use_id"))] = content
            item = {**item, "content": model_content(content, max_chars)}
        out.append(item)
    return out, shown


def answer_value(rich: RichResult) -> Any:
    """The value a rich answer stands for, to check against the tool's output schema."""
    data = rich.data
    if rich.kind == "text" and isinstance(data, dict):
        return data.get("content")
    if rich.kind == "json" and isinstance(data, dict):
        return data.get("data")
    return data
