"""The projection of a session's events into what the widget shows.

Agent events become transcript items (sent incrementally as custom messages) and
trait values (status, usage); the broker's prompt events become the synced
`prompts` trait while a prompt is open, a transcript item once it closes, and the
error line. This is the widget's only reading of the runtime.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Literal, cast

from ..events._activity import fold
from ..events._events import _Event
from ..events._toolset_text import change_phrase, container_answer, event_line
from ._shown import shown_form
from ._toolset_view import container_names, refresh
from ._transcript import Transcript, person_texts, preview
from ._view import ChatView
from ._wire_kernel import Activity, Item, PromptState

if TYPE_CHECKING:
    from ..agent._agent import Agent

__all__ = ["Projection"]


class Projection:
    """Keeps a `ChatView` and its `Transcript` in step with the events of one session."""

    def __init__(self, view: ChatView, transcript: Transcript, agent: Agent | None = None) -> None:
        self.view = view
        self.transcript = transcript
        self.agent = agent
        self._events = itertools.count()
        self._shown: dict[int, int] = {}
        """How many texts of each user message (by history index) have a bubble."""

    def __call__(self, event: _Event) -> None:
        kind = getattr(event, "type", "")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _on_text_delta(self, e: Any) -> None:
        self.transcript.add_text(f"r{e.request}", e.text)

    def seen_history(self, messages: list[dict[str, Any]]) -> None:
        """The user messages already shown (rebuilt from a saved history, or none after /clear)."""
        users = ((i, m) for i, m in enumerate(messages) if m["role"] == "user")
        self._shown = {i: len(person_texts(m["content"])) for i, m in users}

    def _on_message(self, e: Any) -> None:
        if e.message["role"] != "user":
            return
        # After a Stop (or a failed request) the next message extends the last user message: each new
        # text gets its own bubble, in order, where it was typed; notes of tools run by hand get none.
        texts = person_texts(e.message["content"])
        shown = self._shown.get(e.index, 0)
        self._shown[e.index] = len(texts)
        for k in range(shown, len(texts)):
            item_id = f"u{e.index}" if k == 0 else f"u{e.index}.{k}"
            self.transcript.upsert({"id": item_id, "kind": "user", "text": texts[k]})

    def _on_tool_started(self, e: Any) -> None:
        status: Literal["pending", "running"] = "pending" if e.executor == "frontend" else "running"
        self.transcript.upsert(
            {
                "id": e.tool_use_id,
                "kind": "tool",
                "name": e.name,
                "input": e.input,
                "executor": e.executor,
                "status": status,
            }
        )

    def _on_tool_completed(self, e: Any) -> None:
        result = e.result
        item: Item = {
            "id": e.tool_use_id,
            "kind": "tool",
            "name": e.name,
            "status": "error" if result.is_error else "done",
            "result": preview(result.content),
            "is_error": result.is_error,
            "duration": round(e.duration, 3),
            "activity": None,
        }
        if getattr(e, "shown", None) is not None:  # its view: a table's first page, a diff, an image
            item["shown"] = shown_form(e.shown)
        self.transcript.upsert(item)

    def _on_tool_error(self, e: Any) -> None:
        if e.name in container_names(self.agent) and container_answer(e.name, e.error) is not None:
            return  # a container's answer is no error, and it shows as an event row, not a tool card
        self.transcript.upsert(
            {
                "id": e.tool_use_id,
                "kind": "tool",
                "name": e.name,
                "status": "error",
                "result": e.error,
                "is_error": True,
                "activity": None,
            }
        )

    def _on_tool_progress(self, e: Any) -> None:
        self._report(e)

    _on_tool_step = _on_tool_result_preview = _on_tool_progress

    def _report(self, e: Any) -> None:
        item = self.transcript.items.get(e.tool_use_id)
        if item is not None:  # coalesced: a tool reporting thousands of times sends ~10 updates a second
            self.transcript.set_activity(e.tool_use_id, cast(Activity, fold(item.get("activity"), e)))

    def _on_approval_required(self, e: Any) -> None:
        self.transcript.upsert(
            {"id": e.tool_use_id, "kind": "tool", "name": e.name, "input": e.input, "status": "pending"}
        )

    def _on_toolset_changed(self, e: Any) -> None:
        if e.by == "tool" and e.tool_use_id:  # one row per result, however many kinds of change it made
            item_id = f"t{e.tool_use_id}"
            if item_id in self.transcript.items:
                text = f"{self.transcript.items[item_id].get('text', '')}; {change_phrase(e.change, e.names)}"
            else:
                card = self.transcript.items.get(e.tool_use_id)
                source = card.get("name", "") if card is not None else ""
                text = event_line(e.change, e.names, e.by, e.tools, source)
        else:  # a container call's row has the call's id, as when it is rebuilt from the history
            item_id = e.tool_use_id if e.by == "model" and e.tool_use_id else f"e{next(self._events)}"
            text = event_line(e.change, e.names, e.by, e.tools)
        self.transcript.upsert({"id": item_id, "kind": "event", "text": text})
        self.refresh_toolset()

    def refresh_toolset(self) -> None:
        """The Tools menu's traits, from the agent as it is now."""
        if self.agent is not None:
            refresh(self.view, self.agent)

    def _on_status(self, e: Any) -> None:
        self.refresh_toolset()  # a session loaded or changed from code: cheap when nothing changed
        self.transcript.flush()
        if e.state == "retrying":
            self._discard_streamed_text()
        with self.view.hold_sync():  # one comm message for both
            self.view.status, self.view.status_detail = e.state, e.detail

    def _on_usage(self, e: Any) -> None:
        self.view.usage = e.usage.model_dump()

    def _on_prompt_changed(self, e: Any) -> None:
        prompt = e.prompt.model_dump()
        tool_use_id = prompt["tool_use_id"]
        if prompt["status"] == "pending":
            self.view.prompts = {**self.view.prompts, tool_use_id: prompt}
            return
        # Closed: onto its transcript item (sent once, never saved in the notebook), out of the trait.
        closed = cast(PromptState, {**prompt, "input_schema": None, "output_schema": None})
        if tool_use_id in self.transcript.items:
            self.transcript.upsert({"id": tool_use_id, "prompt": closed})
        else:
            self.transcript.upsert({"id": tool_use_id, "kind": "prompt", "prompt": closed})
        if tool_use_id in self.view.prompts:
            self.view.prompts = {k: v for k, v in self.view.prompts.items() if k != tool_use_id}

    def _on_answer_refused(self, e: Any) -> None:
        if e.tool_use_id in self.view.prompts:
            return  # its card shows why (the prompt's `error`), and clears it once an answer is taken
        self.view.error = e.reason

    def _discard_streamed_text(self) -> None:
        for item_id, item in reversed(self.transcript.items.items()):
            if item.get("kind") == "assistant" and item_id.startswith("r"):
                self.transcript.upsert({"id": item_id, "discarded": True})
                return
