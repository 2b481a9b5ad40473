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
from ._app_cards import app_ref, attach_later
from ._reply_view import Replies
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
        self.replies = Replies(transcript)
        self._set_aside = 0
        """Refused turns set aside so far: a message at a refused one's history index gets a new bubble."""
        self._reset_from: int | None = None
        self._continuable: str | None = None
        """The turn notice whose Continue button is live."""
        self._streaming: set[str] = set()  # app calls whose arguments are streaming in

    def __call__(self, event: _Event) -> None:
        kind = getattr(event, "type", "")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _on_text_delta(self, e: Any) -> None:
        self.replies.text(e.request, e.index, e.text)

    def _on_thinking_delta(self, e: Any) -> None:
        self.replies.thinking(e.request, e.index, e.text)

    def _on_assistant_block(self, e: Any) -> None:
        self.replies.block(e.request, e.index, e.block)

    def _on_turn_notice(self, e: Any) -> None:
        """The turn ended early: what happened, the API's explanation, what to do, maybe Continue."""
        self.continued()  # an older notice's button goes: only the last turn can be continued
        item_id = f"tn{next(self._events)}"
        can_continue = "continue" in e.actions
        notice: Item = {"id": item_id, "kind": "notice", "level": "warning", "text": e.title}
        notice.update({"explanation": e.detail, "advice": e.advice, "can_continue": can_continue})
        self.transcript.upsert(notice)
        self._continuable = item_id if can_continue else None
        if e.stop_reason == "refusal":  # the refused message left the history: its index is used again
            self._reset_from = max(self._shown, default=0)

    def continued(self) -> bool:
        """The person pressed Continue (or the turn moved on): the button goes. Whether one was live."""
        item_id, self._continuable = self._continuable, None
        if item_id is not None and item_id in self.transcript.items:
            self.transcript.upsert({"id": item_id, "can_continue": False})
        return item_id is not None

    def seen_history(self, messages: list[dict[str, Any]]) -> None:
        """The user messages already shown (rebuilt from a saved history, or none after /clear)."""
        users = ((i, m) for i, m in enumerate(messages) if m["role"] == "user")
        self._shown = {i: len(person_texts(m["content"])) for i, m in users}
        if self.agent is not None and messages:  # rebuilt cards of MCP app tools get their app
            attach_later(self.agent, self.transcript)

    def _on_tool_input_delta(self, e: Any) -> None:
        app = app_ref(self.agent, e.name)
        if app is not None:  # an app's card shows its arguments as they stream
            item: Item = {"id": e.tool_use_id, "kind": "tool", "name": e.name, "input": e.input, "app": app}
            self.transcript.upsert({**item, "executor": "backend", "status": "pending", "streaming": True})
            self._streaming.add(e.tool_use_id)

    def _on_message(self, e: Any) -> None:
        if e.message["role"] != "user":
            self.replies.complete()
            # The reply is whole: so are its calls' arguments, given with the same update (an app is sent
            # its input once the card stops streaming: a partial form left in place would be what it got).
            content = e.message["content"] if isinstance(e.message["content"], list) else []
            whole = {
                b.get("id"): b.get("input")
                for b in content
                if isinstance(b, dict) and b.get("type") == "tool_use"
            }
            for tool_use_id in self._streaming:
                update: Item = {"id": tool_use_id, "streaming": False}
                if isinstance(arguments := whole.get(tool_use_id), dict):
                    update["input"] = arguments
                self.transcript.upsert(update)
            self._streaming.clear()
            return
        if self._reset_from is not None:  # the first message after a refusal set aside: fresh bubbles
            self._shown = {i: n for i, n in self._shown.items() if i < min(e.index, self._reset_from)}
            self._reset_from = None
            self._set_aside += 1
        if self._continuable is not None and person_texts(e.message["content"]):
            self.continued()  # the person wrote again: the cut-off turn is not continued any more
        # After a Stop (or a failed request) the next message extends the last user message: each new
        # text gets its own bubble, in order, where it was typed; notes of tools run by hand get none.
        texts = person_texts(e.message["content"])
        shown = self._shown.get(e.index, 0)
        self._shown[e.index] = len(texts)
        for k in range(shown, len(texts)):
            item_id = f"u{e.index}" if k == 0 else f"u{e.index}.{k}"
            item_id += f"~{self._set_aside}" if self._set_aside else ""
            self.transcript.upsert({"id": item_id, "kind": "user", "text": texts[k]})

    def _on_tool_started(self, e: Any) -> None:
        status: Literal["pending", "running"] = "pending" if e.executor == "frontend" else "running"
        item: Item = {
            "id": e.tool_use_id,
            "kind": "tool",
            "name": e.name,
            "input": e.input,
            "executor": e.executor,
            "status": status,
        }
        app = app_ref(self.agent, e.name)
        if app is not None:  # its MCP server ships an interface: the card shows it
            item["app"] = app
        self.transcript.upsert(item)

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
            self.replies.discard_unfinished()
            for tool_use_id in self._streaming:  # an app's card of the reply given up: hidden with it
                self.transcript.upsert({"id": tool_use_id, "discarded": True, "streaming": False})
            self._streaming.clear()
        with self.view.hold_sync():  # one comm message for both
            self.view.status, self.view.status_detail = e.state, e.detail

    def _on_usage(self, e: Any) -> None:
        turn = e.turn.model_dump(exclude_defaults=True) if e.turn is not None else None  # small: saved
        context = {"context_tokens": e.context_tokens, "context_window": e.context_window}
        self.view.usage = {**e.usage.model_dump(), "turn": turn, **context}

    def _on_prompt_changed(self, e: Any) -> None:
        prompt = e.prompt.model_dump()
        tool_use_id = prompt["tool_use_id"]
        if prompt["status"] == "pending":
            self.view.prompts = {**self.view.prompts, tool_use_id: prompt}
            return
        # Closed: onto its transcript item (sent once, never saved in the notebook), out of the trait.
        closed = cast(PromptState, {**prompt, "input_schema": None, "output_schema": None, "preview": None})
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
