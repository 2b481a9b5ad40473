"""What a running call asks the person (an MCP server, a consent card), answered by ack.

A run's `FrontendSession` answers its agent's MCP servers and installs its in-call prompts (see
`frontend/_session.py`): an elicitation (form or URL) or a sampling request a server sends while one
of its tools runs, or the kernel toolset's consent card ("Claude's code produced data. Send it to
Claude?", `kernel_consent`), opens a prompt in the session's broker. `MCPAsks` registers each such
prompt with the ack registry while it is open, and its holder in the store (so an ack posted to any
worker reaches it); a stream shows it only once it is held (`Run.until_held`). Held runs of the
server's own contract and every AG-UI run have one (`Runner.start`, `hold` or `asks`).

A prompt's own id is unique only within its session (the same question gets the same id in every
session, so a cassette replays it), so clients know it as `<prompt id>.<session>`. Both streams
find a new one with `asked` and show it in their own shape:

- the server's own contract: one `awaiting_frontend_acks` element (`ask_frame`):
  `{tool_use_id, name, input, expires_at, output_schema, renderer}`;
- AG-UI 1.0, which has no way to ask mid-run (an interrupt ends the run, and running the call
  again to ask would run its code twice): a `CUSTOM` event `notebook_tools.ask` shaped like an
  AG-UI interrupt (`ask_value`), `{id, reason, message, toolCallId?, responseSchema, expiresAt?,
  metadata: {name, input, renderer, answer: {method, path}}}`, and once the prompt closed
  (answered, timed out, stopped, or the run ended) `notebook_tools.ask_closed` `{id, status}`.
  `reason` is "kernel_consent" for a consent card, "mcp_elicitation" for an MCP server's
  question (elicitation, sampling, sign-in), "input_required" for any other; `expiresAt` is an
  ISO date like the interrupts' and is left out when the prompt waits until answered.

An external agent's session (Claude Code, an ACP agent: see `_external`) asks everything it asks from
inside a running call, its approval cards included, so there every prompt of the broker is such a
question (`MCPAsks(every=True)`): an approval card's `reason` is "confirmation", its
`responseSchema` the decision (`{"approved", "reason"?, "edited_input"?, "remember"?}`), and its
`metadata` adds the card's `kind`, `preview` (`{kind, text}`: the command, the diff), `editable`
(false: an agent that takes no edited arguments, whose decision schema has no `edited_input`) and `scope`
(what "allow always" covers); a question's (`select`, `text`) `responseSchema` is the answer's
shape (a list of the chosen options, or the text).

`input.server`, `input.server_message` and a consent card's `input.would_send` are untrusted words
(a server's, printed data): they go out only as JSON values. The client answers with
`POST /api/tools/ack` `{"toolCallId": <public id>, "status", "output"}`: `success` with the form's
content as JSON text in `output` (accept; as every front end sends a form, checked against
`output_schema`), `skipped` (decline), `failed` (cancel); a URL card's `success` output is
`{"url": <the url>, "via": "button"}`, sent when the person clicked Open. A consent card that is
declined, cancelled, stopped or never answered sends nothing of the data (it fails closed).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from typing import Any

from ..events._events import PromptChanged, _Event
from ..events._prompt import Prompt
from ..prompts._broker import PromptBroker
from ..tools._checkpoint import checkpoint
from ._acks import AckRegistry
from ._agui_interrupts import iso_date

__all__ = [
    "ASKED_IN_CALLS",
    "ASK_CLOSED_EVENT",
    "ASK_EVENT",
    "DECISION_SCHEMA",
    "MCPAsks",
    "ask_frame",
    "ask_value",
    "asked",
]

ASKED_IN_CALLS = frozenset({"mcp", "kernel"})
"""Categories of the prompts a running call opens: an MCP server's questions, the kernel toolset's
consent cards (see `prompts.InCallPrompts`)."""
ASK_EVENT = "notebook_tools.ask"
"""The AG-UI `CUSTOM` event's name for an open in-call prompt."""
ASK_CLOSED_EVENT = "notebook_tools.ask_closed"
"""The AG-UI `CUSTOM` event's name for an in-call prompt that closed."""
ACK_PATH = "/api/tools/ack"
_REASONS = {"kernel": "kernel_consent", "mcp": "mcp_elicitation"}


class MCPAsks:
    """Keeps a run's open in-call prompts in the ack registry; `ids` are the ones it saw.

    Args:
        acks: This worker's open frontend calls.
        broker: The run's session's prompts.
        session: The run's session (its agent's uuid), which makes the prompts' ids unique.
        hold: Puts ids clients know on record for every worker; awaited in a task of its own.
        every: Every prompt of `broker` is asked from inside a running call (an external agent's
            session, whose approval cards are its permission requests); else only the prompts of
            `ASKED_IN_CALLS` tools, not a pause's approval cards.
    """

    def __init__(
        self,
        acks: AckRegistry,
        broker: PromptBroker,
        session: str,
        hold: Callable[[list[str]], Coroutine[Any, Any, None]],
        *,
        every: bool = False,
    ) -> None:
        self.acks, self.broker, self.session, self._hold = acks, broker, session, hold
        self.every = every
        self.ids: set[str] = set()
        self.calls: dict[str, str] = {}
        """The running call that opened each prompt (its `tool_use_id`), where one is known."""
        self._open: set[str] = set()
        self._holding: set[asyncio.Task[None]] = set()
        self._unsubscribe = broker.events.subscribe(self._on_event)

    def public_id(self, tool_use_id: str) -> str:
        """The id clients know a prompt by: unique across sessions, the same each time it is shown."""
        return f"{tool_use_id}.{self.session}"

    def category(self, prompt: Prompt) -> str:
        """The category of the tool whose prompt this is ("" when the broker no longer knows it)."""
        tool = self.broker.tools.get(prompt.name)
        return tool.category if tool is not None and tool.category else ""

    def _on_event(self, event: Any) -> None:
        if not isinstance(event, PromptChanged):
            return
        prompt = event.prompt
        # (an approval card of a kernel or MCP tool is the pause's, not a question from inside a call)
        if (
            prompt.tool_use_id not in self.ids
            and not self.every
            and (prompt.kind == "approval" or self.category(prompt) not in ASKED_IN_CALLS)
        ):
            return
        if prompt.tool_use_id not in self.ids:
            self.ids.add(prompt.tool_use_id)
            # (published from inside the call that asks, when it is one of ours; an external agent's card
            # is about its own call: see `call_of`)
            call = prompt.tool_use_id if self.every else checkpoint().tool_use_id
            if call:
                self.calls[prompt.tool_use_id] = call
        public = self.public_id(prompt.tool_use_id)
        if prompt.status == "pending" and prompt.tool_use_id not in self._open:
            self._open.add(prompt.tool_use_id)
            self.acks.add([public], self.broker, {public: prompt.tool_use_id})
            task = asyncio.get_running_loop().create_task(self._hold([public]))
            self._holding.add(task)
            task.add_done_callback(self._holding.discard)
        elif prompt.status != "pending" and prompt.tool_use_id in self._open:
            self._open.discard(prompt.tool_use_id)
            self.acks.finish([public], self.broker)

    def call_of(self, tool_use_id: str, known: Callable[[str], bool]) -> str | None:
        """The call the prompt `tool_use_id` asks about, if `known` takes it (a call the client holds open).

        An external agent's card has its call's id, numbered when the call is asked again (`_2`) or
        the card is one of its questions (`_q1`): both are tried.
        """
        call = self.calls.get(tool_use_id)
        tried = [call, re.sub(r"_q?\d+$", "", tool_use_id)] if self.every else [call]
        return next((c for c in tried if c and known(c)), None)

    def close(self) -> None:
        """The run ended: its prompts are no longer answered here."""
        self._unsubscribe()
        self.acks.finish(sorted(self.public_id(i) for i in self._open), self.broker)
        self._open.clear()


def asked(asks: MCPAsks | None, event: _Event, shown: set[str]) -> Prompt | None:
    """The in-call prompt `event` opens, if it is one not shown yet (then noted in `shown`)."""
    if asks is None or not isinstance(event, PromptChanged) or event.prompt.status != "pending":
        return None
    tool_use_id = event.prompt.tool_use_id
    if tool_use_id not in asks.ids or tool_use_id in shown:
        return None
    shown.add(tool_use_id)
    return event.prompt


def ask_frame(prompt: Prompt, public_id: str) -> dict[str, Any]:
    """An open in-call prompt as the stream's `awaiting_frontend_acks` shows it (known by `public_id`).

    An approval card (an external agent's permission request) adds its `kind`, `preview` and `scope`,
    and its `output_schema` is the decision's.
    """
    expires = None if prompt.timeout is None else prompt.requested_at + prompt.timeout
    return {
        "tool_use_id": public_id,
        "name": prompt.name,
        "input": prompt.input,
        "expires_at": expires,
        "output_schema": _answer_schema(prompt),
        "renderer": prompt.renderer,
        **_card(prompt),
    }


DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string", "description": "Why it was denied (the agent is told)."},
        "edited_input": {"type": "object", "description": "The arguments to run instead (all of them)."},
        "remember": {
            "enum": ["scope", "tool", "arguments"],
            "description": "Allow such calls from now on: what `metadata.scope` says, every call of the "
            "tool, or calls with these exact arguments.",
        },
    },
    "required": ["approved"],
    "additionalProperties": False,
}
"""What an approval card's answer is (the ack's `output`): `ApprovalDecision` without its id."""


def _answer_schema(prompt: Prompt) -> dict[str, Any] | None:
    """The shape of the ack's `output` for `prompt`: its tool's, or its kind's for a card without one."""
    if prompt.output_schema is not None:
        return prompt.output_schema
    if prompt.kind == "approval" and not prompt.editable:  # (an ACP agent's: no edited arguments)
        properties = {k: v for k, v in DECISION_SCHEMA["properties"].items() if k != "edited_input"}
        return {**DECISION_SCHEMA, "properties": properties}
    if prompt.kind == "approval":
        return DECISION_SCHEMA
    if prompt.kind == "select":
        options = {"enum": list(prompt.input.get("options", []))}
        most = {} if prompt.input.get("multiple") else {"maxItems": 1}
        return {"type": "array", "items": options, "minItems": 1, "uniqueItems": True, **most}
    if prompt.kind == "text":
        return {"type": "string"}
    return None


def _card(prompt: Prompt) -> dict[str, Any]:
    """What an approval card shows beyond its input: its kind, what will run, what "always" covers."""
    if prompt.kind != "approval":
        return {}
    preview = prompt.preview.model_dump(mode="json") if prompt.preview is not None else None
    return {"kind": prompt.kind, "preview": preview, "scope": prompt.scope, "editable": prompt.editable}


def ask_value(prompt: Prompt, public_id: str, category: str, call: str | None) -> dict[str, Any]:
    """An open in-call prompt as the value of AG-UI's `notebook_tools.ask`, shaped like an interrupt.

    Args:
        prompt: The open prompt.
        public_id: The id clients know it by (the ack's `toolCallId`).
        category: Its tool's category ("kernel", "mcp").
        call: The running call that asks, when the client knows it (its `toolCallId`).
    """
    message = prompt.input.get("message")
    if not message and prompt.kind in ("select", "text"):  # (an external agent's question: its text)
        message = prompt.input.get("prompt")
    reason = "confirmation" if prompt.kind == "approval" else _REASONS.get(category, "input_required")
    value: dict[str, Any] = {
        "id": public_id,
        "reason": reason,
        "message": message if isinstance(message, str) and message else prompt.description or prompt.name,
    }
    if call:
        value["toolCallId"] = call
    value["responseSchema"] = _answer_schema(prompt) or {}
    expires = None if prompt.timeout is None else iso_date(prompt.requested_at + prompt.timeout)
    if expires is not None:
        value["expiresAt"] = expires
    value["metadata"] = {
        "name": prompt.name,
        "input": prompt.input,
        "renderer": prompt.renderer,
        "answer": {"method": "POST", "path": ACK_PATH},
        **_card(prompt),
    }
    return value
