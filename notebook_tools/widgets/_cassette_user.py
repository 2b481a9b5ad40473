"""A cassette in a Chat: the person's answers recorded, or replayed through the widget's own path.

Recording, every answer a front end gives (the browser, or a scripted user when no browser
is there) is kept with its prompt's tool_use_id; a refused one is dropped again, and a Stop while
a prompt is open is kept as `{"stopped": true}` (the replay stops there too). Replaying,
`CassetteUser` answers each prompt with the answer recorded for its tool_use_id (the ids come
from the recorded responses, so they are the same), sent exactly as the browser sends it, so
the widget, the broker and the agent all run as they did.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..events._events import AnswerRefused, PromptAnswer, PromptChanged, _Event
from ..testing._cassette import Cassette
from ._chat import Chat
from ._scripted_user import HEADLESS_ENV, ScriptedUser

__all__ = ["STOPPED", "CassetteUser", "attach"]

STOPPED = {"stopped": True}
"""Recorded in place of an answer when the person pressed Stop while the prompt was open."""


class CassetteUser(ScriptedUser):
    """Answers a Chat's prompts with the answers a cassette recorded.

    Args:
        chat: The widget to answer.
        cassette: The cassette being replayed.
        delay: Seconds before each answer.
    """

    def __init__(self, chat: Chat, cassette: Cassette, *, delay: float = 0.05) -> None:
        self.cassette = cassette
        super().__init__(chat, {}, delay=delay)
        chat.view.notice = chat.view.notice.replace(
            "Prompts are answered by a scripted user.", "Prompts are answered from the cassette."
        )

    def _answer(self, tool_use_id: str) -> None:
        prompt = self.chat.prompts.get(tool_use_id)
        if prompt is None or prompt["status"] != "pending":
            return
        if self.cassette.recording:
            # `auto` re-records from a changed request on: this prompt came from the API, so the person
            # answers it (or, with no browser, a scripted user's default does) and the answer is kept.
            if os.environ.get(HEADLESS_ENV) == "1":
                super()._answer(tool_use_id)
            return
        recorded = self.cassette.answer_for(tool_use_id)
        if recorded == STOPPED:  # the person pressed Stop here: so does the replay, and nothing is wrong
            self.chat.stop()
            return
        if not isinstance(recorded, dict):
            reason = (
                f"the cassette {self.cassette.path} recorded no answer for {prompt['name']} ({tool_use_id})"
            )
            self.chat.refuse(reason)  # shown in the widget and logged
            self.chat.stop()  # no answer will come: the turn ends now instead of waiting for one
            return
        self.answered.append((prompt["name"], recorded))
        self._send({"type": "answer", "tool_use_id": tool_use_id, "answer": {**recorded, "at": time.time()}})


def attach(
    cassette: Cassette, chat: Chat, answers: dict[str, Any] | None = None, apps: dict[str, Any] | None = None
) -> ScriptedUser | None:
    """Replaying: a `CassetteUser`. Recording: keep every answer (with no browser, a scripted user's).

    The scripted user answers with `answers` (by prompt name), else with its defaults, and does what
    `apps` says in MCP apps (see `ScriptedUser`); replaying, the apps' requests come from the cassette.

    Answers are kept whenever the cassette records, so also once `auto` starts re-recording mid-replay.
    """

    def on_event(event: _Event) -> None:
        if isinstance(event, PromptAnswer):
            prompt = chat.broker.prompts.get(event.tool_use_id)
            if prompt is not None and prompt.status == "pending" and isinstance(event.answer, dict):
                answer = {k: v for k, v in event.answer.items() if k != "at"}
                cassette.record_answer(event.tool_use_id, prompt.name, answer)
        elif isinstance(event, AnswerRefused) and event.tool_use_id:
            cassette.drop_answer(event.tool_use_id)
        elif isinstance(event, PromptChanged) and event.prompt.status == "cancelled":  # Stop (recording)
            cassette.record_answer(event.prompt.tool_use_id, event.prompt.name, STOPPED)

    chat.broker.events.subscribe(on_event)
    if not cassette.recording:
        return CassetteUser(chat, cassette)
    return ScriptedUser(chat, answers, apps=apps) if os.environ.get(HEADLESS_ENV) == "1" else None
