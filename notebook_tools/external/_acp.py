"""Any Agent Client Protocol agent as an agent the chat drives: its permission requests are approval cards.

An ACP agent (Claude Code through `@agentclientprotocol/claude-agent-acp`, or any other) runs as a
process of its own and speaks JSON-RPC on its stdin and stdout (`agent-client-protocol`, the
optional `acp` extra). `ACPAgent` is its client: it starts the process, opens a session in a folder,
sends the person's prompts, and answers what the agent asks of its client through a `PromptBroker`,
so the widget, the terminal and the HTTP server show the cards alike:

- `session/request_permission` is an approval card showing what will run (the diff the agent sends,
  the command, the files), answered with the agent's own options: allow once, allow always (when the
  agent offers it, its rule), reject. An ACP agent runs a call only as it asked it, so the card
  offers no edit of the arguments;
- `elicitation/create` (form or URL) is the toolkit's form card or URL consent card, as an MCP
  server's is (Claude Code's AskUserQuestion comes this way: its questions are one form);
- `session/update`s are the transcript (`AcpEvents`); Stop is `session/cancel`, after which every
  request still open is answered "cancelled".

The cards never fail open: a card that fails, times out, is stopped or has nobody to ask answers
with the agent's reject option (or "cancelled"), never with an allow.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import difflib
import logging
import tempfile
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import IO, Any, Literal

from .._exceptions import ConfigurationError
from ..events._bus import EventBus
from ..mcp._elicitation import MCPElicitation
from ..prompts._broker import PromptBroker
from ..prompts._in_call import InCallPrompts
from ..session._state import AgentState
from ..stores._store import SessionStore
from ..tools._approvals import (
    ApprovalDecision,
    ApprovalMode,
    ApprovalPreview,
    ApprovalScope,
    RememberedApproval,
)
from ..tools._tool import Tool
from ._acp_events import AcpEvents, call_name, identified
from ._claude_code import preview as cli_preview
from ._kept import checked_approval_mode, keep, kept

__all__ = ["EXTRA", "ACPAgent", "TurnEnded"]

log = logging.getLogger("notebook_tools")

EXTRA = 'pip install "notebook_tools[acp]"'
"""How to get the ACP client library (`agent-client-protocol`)."""

_KEY = "acp"
"""Where a saved session keeps the agent's session id (its `plugin_data`)."""
_STDERR_KEPT = 4000
"""Characters of the agent's stderr an error message quotes."""


def _acp() -> Any:
    try:
        import acp
    except ImportError as exc:
        raise ConfigurationError(f"ACPAgent needs the ACP client library: {EXTRA}") from exc
    return acp


def _schema_only(**arguments: Any) -> None:
    """Schema-only: a person answers it."""


@dataclasses.dataclass(frozen=True)
class TurnEnded:
    """The end of a turn, the last item `ACPAgent.stream` yields."""

    stop_reason: str
    """The agent's: "end_turn", "cancelled" (a Stop), "refusal", "max_tokens", ... or "error"."""
    result: str
    """What the agent said in the turn (its text), or why the turn failed."""
    is_error: bool = False
    usage: Any = None
    """The agent's `Usage` of the turn, when it sent one."""


class ACPAgent:
    """An Agent Client Protocol agent driven as a process of its own, its requests asked as cards.

    Use it as an async context manager (or `start()` / `close()`), then `send` a prompt per turn::

        async with nt.ACPAgent(["npx", "claude-agent-acp"], cwd="project") as agent:
            updates = await agent.send("Fix the failing test")

    or hand it to `nt.Chat(agent)` (the widget) or the terminal chat.

    Args:
        command: The agent's command line (its program and arguments).
        cwd: The folder of the agent's session (and of its process).
        env: Variables for its process, over a trimmed copy of this one's environment (PATH, HOME,
            ... as MCP's stdio servers get: a key of yours reaches the agent only if you pass it).
        broker: Whose front ends show the cards (a new one, on its own event bus, if None).
        approval_timeout: Seconds a card waits before its call is rejected as unanswered (None: it
            waits for the person, within the broker's no-front-end policies).
        approval_mode: "interactive" (a card per request), "approve_all" (the agent's allow-once
            option, without a card) or "auto_deny" (its reject option, without a card). Questions
            (elicitation) are asked in every mode. Settable at any time.
        mode: The agent's own session mode to switch to once the session is open (one of its
            `modes`, e.g. "acceptEdits" for Claude Code); see also `set_mode`.
        store: Where the agent's session id is kept (with the conversation as a chat shows it and
            the calls remembered for it): an `ACPAgent` made later with the same store and `session`
            resumes that session, when the agent can (`session/resume` or `session/load`).
        session: The key of that saved session (a new uuid if None).

    Raises:
        ConfigurationError: the ACP library is missing, `command` is empty, a mode is not one of
            these, or the saved session ran in another folder.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: dict[str, str] | None = None,
        broker: PromptBroker | None = None,
        approval_timeout: float | None = None,
        approval_mode: ApprovalMode = "interactive",
        mode: str | None = None,
        store: SessionStore | None = None,
        session: str | None = None,
    ) -> None:
        _acp()
        if isinstance(command, str) or not command or not all(isinstance(part, str) for part in command):
            raise ConfigurationError(
                "command must be the agent's command line as a list: ['npx', 'my-agent']"
            )
        self.command = list(command)
        self.cwd = Path(cwd if cwd is not None else ".").resolve()
        self.env = dict(env or {})
        self.broker = broker if broker is not None else PromptBroker(events=EventBus())
        self.approval_timeout = approval_timeout
        self._approval_mode: ApprovalMode = checked_approval_mode(approval_mode)
        self.mode = mode
        self.store = store
        self.session = session or str(uuid.uuid4())
        """The key of this conversation in `store`."""
        self.session_id: str | None = None
        """The agent's session id (once `start` opened or resumed it)."""
        self.remembered: list[RememberedApproval] = []
        """Calls approved for the session by "remember these arguments" (kept here, not by the agent)."""
        self.tools_allowed: set[str] = set()
        """Tools approved for the session by "remember every call of this tool" (kept here)."""
        self.decisions: list[tuple[str, dict[str, Any], str]] = []
        """Every answer given to a permission request, in order: (tool, its input, the option's kind or
        "cancelled")."""
        self.shown = AcpEvents()
        """The agent's updates as display events, published on the broker's bus as they arrive."""
        self.agent_info: Any = None
        """What the agent said of itself and its capabilities (`initialize`'s answer)."""
        self.modes: list[str] = []
        """The agent's session modes (ids), as it listed them."""
        self._saved: AgentState | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._conn: Any = None
        self._stderr: IO[bytes] | None = None
        self._updates: asyncio.Queue[Any] = asyncio.Queue()
        self._loading = False
        self._asking: set[str] = set()
        self._eliciting = 0
        self._cancelling = False
        self._named: dict[str, tuple[str, bool]] = {}
        """Each tool call's name, and whether the agent named it, as its `tool_call` said."""
        if store is not None:
            self._load(store)

    # -- the saved session ---------------------------------------------------------------------

    def _load(self, store: SessionStore) -> None:
        state, saved = kept(store, self.session, _KEY, self.cwd, "the ACP agent")
        if state is None:
            return
        if isinstance(saved.get("session_id"), str):
            self.session_id = saved["session_id"]
            self.shown.history = list(state.messages)
            self.shown.session = self.session_id
        self.remembered = list(state.approvals)
        self.tools_allowed = {t for t in saved.get("tools_allowed", []) if isinstance(t, str)}
        self.shown.usage = state.usage
        self._saved = state

    def _save(self) -> None:
        if self.store is None or self.session_id is None:
            return
        data = {
            "session_id": self.session_id,
            "cwd": str(self.cwd),
            "tools_allowed": sorted(self.tools_allowed),
        }
        self._saved = keep(
            self.store, self._saved, self.session, _KEY, data, remembered=self.remembered, shown=self.shown
        )

    # -- settings ------------------------------------------------------------------------------

    @property
    def approval_mode(self) -> ApprovalMode:
        """What the agent's permission requests get: a card, its allow option, its reject option."""
        return self._approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None:
        self._approval_mode = checked_approval_mode(mode)  # refused: the mode stays as it was

    async def set_mode(self, mode: str) -> None:
        """Switch the agent's session mode (one of `modes`); kept for a session opened later.

        Raises:
            ConfigurationError: the agent listed its modes and `mode` is not one (nothing changes).
        """
        if self.modes and mode not in self.modes:
            raise ConfigurationError(
                f"the agent's modes are {', '.join(map(repr, self.modes))}, not {mode!r}"
            )
        if self._conn is not None and self.session_id is not None:
            await self._conn.set_session_mode(session_id=self.session_id, mode_id=mode)
        self.mode = mode

    def ask_through(self, broker: PromptBroker) -> None:
        """Open the cards in `broker` from now on (a chat's or a terminal's, with its front-end policies).

        Raises:
            ConfigurationError: a card of the present broker is still open.
        """
        if self._asking or self._eliciting:
            raise ConfigurationError(
                "the ACP agent has a card open: answer or stop it before moving its cards"
            )
        self.broker = broker

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the agent's process, initialize it and open (or resume) its session."""
        if self._conn is not None:
            return
        acp = _acp()
        from acp.schema import (
            ClientCapabilities,
            ElicitationCapabilities,
            ElicitationFormCapabilities,
            ElicitationUrlCapabilities,
            FileSystemCapabilities,
            Implementation,
        )

        stack = contextlib.AsyncExitStack()
        self._stderr = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 (closed with the stack)
        env = {**acp.transports.default_environment(), **self.env}
        try:
            conn, _process = await stack.enter_async_context(
                acp.spawn_agent_process(
                    _Client(self),
                    self.command[0],
                    *self.command[1:],
                    env=env,
                    cwd=self.cwd,
                    transport_kwargs={"stderr": self._stderr},
                    use_unstable_protocol=True,  # (elicitation is still marked unstable)
                )
            )
            capabilities = ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
                terminal=False,
                elicitation=ElicitationCapabilities(
                    form=ElicitationFormCapabilities(), url=ElicitationUrlCapabilities()
                ),
            )
            self.agent_info = await conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=capabilities,
                client_info=Implementation(name="notebook_tools", title="notebook_tools", version=_version()),
            )
            await self._open_session(conn)
            self._stack, self._conn = stack, conn
            self._save()  # (a store that refuses it ends the agent too: nothing is left running)
        except BaseException as exc:
            self._stack = self._conn = None
            said = self._stderr_tail()
            await stack.aclose()
            if isinstance(exc, Exception):
                raise ConfigurationError(
                    f"the ACP agent {self.command[0]!r} did not start a session: {exc}"
                    + (f"\nits stderr:\n{said}" if said else "")
                ) from exc
            raise

    async def _open_session(self, conn: Any) -> None:
        capabilities = getattr(self.agent_info, "agent_capabilities", None)
        sessions = getattr(capabilities, "session_capabilities", None)
        opened = None
        if self.session_id is not None and getattr(sessions, "resume", None) is not None:
            opened = await conn.resume_session(session_id=self.session_id, cwd=str(self.cwd), mcp_servers=[])
        elif self.session_id is not None and getattr(capabilities, "load_session", False):
            self._loading = True  # the agent replays the conversation: the transcript has it already
            try:
                opened = await conn.load_session(
                    session_id=self.session_id, cwd=str(self.cwd), mcp_servers=[]
                )
            finally:
                self._loading = False
        else:
            if self.session_id is not None:
                log.warning("notebook_tools: the ACP agent cannot resume sessions: a new one starts")
            opened = await conn.new_session(cwd=str(self.cwd), mcp_servers=[])
            self.session_id = opened.session_id
        self.shown.session = self.session_id or ""
        modes = getattr(opened, "modes", None)
        self.modes = [m.id for m in getattr(modes, "available_modes", None) or []]
        if self.mode is not None and self.mode != getattr(modes, "current_mode_id", None):
            await self.set_mode(self.mode)

    async def close(self) -> None:
        """Close every open card (its request answered "cancelled") and end the agent's process."""
        self._close_cards()
        stack, self._stack, self._conn = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    async def __aenter__(self) -> ACPAgent:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0, 2)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_KEPT))
            return self._stderr.read().decode("utf-8", "replace").strip()
        return ""

    # -- turns ---------------------------------------------------------------------------------

    async def stream(self, prompt: str) -> AsyncIterator[Any]:
        """Send `prompt`; yield the agent's session updates as they come, then a `TurnEnded`.

        Each update is also published on the broker's event bus as display events (`AcpEvents`), so
        a chat or a terminal on that bus shows the turn as it goes.
        """
        from acp.schema import TextContentBlock

        await self.start()
        conn, session_id = self._conn, self.session_id
        assert conn is not None and session_id is not None
        self._cancelling = False
        while not self._updates.empty():  # (updates between turns: shown with this one)
            await self._show(self._updates.get_nowait())
        await self._publish(self.shown.prompt(prompt))
        turn = asyncio.ensure_future(
            conn.prompt(session_id=session_id, prompt=[TextContentBlock(type="text", text=prompt)])
        )
        update: asyncio.Future[Any] | None = None
        try:
            while True:
                update = asyncio.ensure_future(self._updates.get())
                await asyncio.wait([turn, update], return_when=asyncio.FIRST_COMPLETED)
                if not update.done():
                    update.cancel()
                    break
                yield await self._show(update.result())
            while not self._updates.empty():  # (the agent sent them before its answer)
                yield await self._show(self._updates.get_nowait())
            self._close_cards()  # a request the agent gave up (or sent after a Stop) is not left open
            try:
                response = turn.result()
            except Exception as exc:
                said = self._stderr_tail()
                await self._publish(self.shown.end("error"))
                self._save()
                yield TurnEnded(
                    "error", f"the ACP agent failed: {exc}" + (f"\n{said[-500:]}" if said else ""), True
                )
                return
            stop = str(getattr(response, "stop_reason", "end_turn"))
            await self._publish(self.shown.end(stop, getattr(response, "usage", None)))
            self._save()
            yield TurnEnded(stop, self.shown.turn_text, False, getattr(response, "usage", None))
        finally:
            if update is not None and not update.done():  # (else it would take the next update)
                update.cancel()
            if not turn.done():  # the caller gave up the turn: the agent is told to stop it
                turn.cancel()
                await self._cancel_turn()

    async def _show(self, update: Any) -> Any:
        await self._publish(self.shown(update))
        return update

    async def _publish(self, events: list[Any]) -> None:
        for event in events:
            await self.broker.events.publish(event)

    async def send(self, prompt: str) -> list[Any]:
        """Send `prompt` and return the turn's updates (the last is its `TurnEnded`)."""
        return [item async for item in self.stream(prompt)]

    async def interrupt(self) -> None:
        """Stop the running turn: open cards answer "cancelled" and the agent gets `session/cancel`.

        Until the turn ends, a request the agent sends still (it was on its way) is answered
        "cancelled" without a card.
        """
        await self._cancel_turn()

    async def _cancel_turn(self) -> None:
        self._cancelling = True
        self._close_cards()
        if self._conn is not None and self.session_id is not None:
            with contextlib.suppress(Exception):  # a gone agent: nothing is left to cancel
                await self._conn.cancel(session_id=self.session_id)

    def _close_cards(self) -> None:
        """Stop, as the chat's Stop does it: the broker's open cards end unanswered (ours: "cancelled")."""
        if self._asking or self._eliciting:
            self.broker.cancel_open()

    # -- what the agent asks -------------------------------------------------------------------

    def _update(self, session_id: str, update: Any) -> None:
        """A `session/update` (queued in order: the running turn shows it).

        A tool call's name is taken at once: the permission request for it may be handled before
        the turn has shown the call (each message the agent sends is a task of its own).
        """
        if self._loading or session_id != self.session_id:
            return
        if getattr(update, "session_update", None) == "tool_call":
            self._named[str(update.tool_call_id)] = (call_name(update), identified(update))
        self._updates.put_nowait(update)

    async def _permission(self, tool_call: Any, options: list[Any]) -> Any:
        """`session/request_permission`: the agent's option the person chose, or "cancelled". Never raises."""
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        named = self._named.get(str(tool_call.tool_call_id))
        name, known = named if named is not None else (call_name(tool_call), identified(tool_call))
        tool_input = tool_call.raw_input if isinstance(tool_call.raw_input, dict) else {}
        try:
            chosen = await self._decide(name, known, tool_input, tool_call, options)
        except asyncio.CancelledError:
            self.decisions.append((name, tool_input, "cancelled"))
            raise
        except Exception as exc:  # whatever failed on our side, the call is not allowed
            log.warning("notebook_tools: rejecting %s: the approval failed: %r", name, exc)
            chosen = _option(options, "reject_once", "reject_always")
        kind = chosen.kind if chosen is not None else "cancelled"
        self.decisions.append((name, tool_input, str(kind)))
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )

    async def _decide(
        self, name: str, known: bool, tool_input: dict[str, Any], tool_call: Any, options: list[Any]
    ) -> Any:
        """The option to answer with (None: "cancelled").

        `known`: the agent named the tool (or its kind), so "every call of this tool" means one tool;
        a call named only "tool", or sent without its input, is approved once whatever is remembered.
        """
        if self._cancelling:  # a request still on its way when the person stopped the turn
            return None
        reject = _option(options, "reject_once", "reject_always")
        once = _option(options, "allow_once", "allow_always")
        always = _option(options, "allow_always")
        if name in self.tools_allowed or any(rule.covers(name, tool_input) for rule in self.remembered):
            return once
        if self._approval_mode == "approve_all":
            return once
        if self._approval_mode == "auto_deny":
            return reject
        card = self._card(name, tool_call, always)
        prompt_id = self._prompt_id(str(tool_call.tool_call_id))
        self._asking.add(prompt_id)
        try:
            cards = InCallPrompts(self.broker, timeout=self.approval_timeout)  # (the timeout as it is now)
            result = await cards.ask(card, tool_input, prompt_id, kind="approval")
        finally:
            self._asking.discard(prompt_id)
        if result.is_error:  # timed out, stopped, nobody there: the call does not run
            return None if result.content == "stopped" else reject
        decision = ApprovalDecision.model_validate_json(str(result.content))
        if not decision.approved:
            return reject
        if decision.remember == "scope":
            return always
        if decision.remember == "tool" and known:
            self.tools_allowed.add(name)
        elif decision.remember == "arguments" and known and tool_input:
            self.remembered.append(RememberedApproval(tool=name, input=dict(tool_input)))
        elif decision.remember is not None:
            log.warning("notebook_tools: %s approved once: the agent did not say what to remember", name)
        self._save()
        return once

    def _card(self, name: str, tool_call: Any, always: Any) -> Tool:
        """The card's tool: the call's title, what will run as its preview, "allow always" as its scope."""
        kind, text = preview(tool_call)
        shown = ApprovalPreview.clipped(kind, text)
        scope = (
            ApprovalScope(key=f"acp:{always.option_id}"[:200], label=str(always.name)[:300])
            if always
            else None
        )
        title = tool_call.title if isinstance(tool_call.title, str) and tool_call.title else name
        taken, card_name, n = self.broker.tools.maps[0], name, 1
        while card_name in taken:  # another card of this tool is open
            n += 1
            card_name = f"{name}_{n}"
        return Tool(
            _schema_only,
            name=card_name,
            description=f"The agent wants to run: {title}",
            executor="frontend",
            category="acp",
            input_schema={"type": "object"},
            display={"edit": False},  # an ACP agent runs the call as it asked it: no edited input
            approval_scope=(lambda _arguments: scope) if scope is not None else None,
            approval_preview=(lambda _arguments: shown) if shown is not None else None,
        )

    def _prompt_id(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c in "_-" else "_" for c in base)[:80] or "acp"
        candidate, n = base, 1
        while candidate in self.broker.prompts or candidate in self._asking:  # the agent asked again
            n += 1
            candidate = f"{base}_{n}"
        return candidate

    async def _elicit(self, message: str, mode: Any) -> dict[str, Any]:
        """`elicitation/create`: the toolkit's form or URL consent card (as an MCP server's request)."""
        asked = MCPElicitation(self.broker, timeout=self.approval_timeout)
        params: dict[str, Any] = {"message": message}
        url = getattr(mode, "url", None)
        if url is not None:
            params |= {"mode": "url", "url": str(url)}
            if getattr(mode, "elicitation_id", None):
                params["elicitationId"] = mode.elicitation_id
        else:
            schema = getattr(mode, "requested_schema", None)
            dumped = schema.model_dump(by_alias=True, exclude_none=True) if schema is not None else None
            params |= {"mode": "form", "requestedSchema": dumped}
        if self._cancelling:
            return {"action": "cancel"}
        self._eliciting += 1
        try:
            answer = await asked(self._agent_name(), params)
        finally:
            self._eliciting -= 1
        if "error" in answer:
            return {"action": "cancel"}  # a request we cannot show is not an answer of the person's
        return answer

    def _agent_name(self) -> str:
        info = getattr(self.agent_info, "agent_info", None)
        return str(getattr(info, "title", None) or getattr(info, "name", None) or Path(self.command[0]).name)


class _Client:
    """The client side of the connection: what the agent asks of us, answered by `ACPAgent`."""

    def __init__(self, agent: ACPAgent) -> None:
        self._agent = agent

    def on_connect(self, conn: Any) -> None:
        """Nothing to keep: `ACPAgent` holds the connection `spawn_agent_process` gives."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self._agent._update(session_id, update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        return await self._agent._permission(tool_call, options)

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        answer = await self._agent._elicit(message, getattr(mode, "root", mode))
        return answer

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        """A page the person opened is done: its card says so."""

    async def read_text_file(self, **kwargs: Any) -> Any:
        raise _acp().RequestError.method_not_found(
            "fs/read_text_file"
        )  # (not offered: the agent reads itself)

    async def write_text_file(self, **kwargs: Any) -> Any:
        raise _acp().RequestError.method_not_found("fs/write_text_file")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise _acp().RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """Extensions we do not know are passed over."""


def preview(tool_call: Any) -> tuple[Literal["diff", "command", "text"], str]:
    """What a permission request will do, as a card shows it: its diffs, else its command, else its files."""
    lines: list[str] = []
    for item in getattr(tool_call, "content", None) or []:
        if getattr(item, "type", None) == "diff" and isinstance(getattr(item, "new_text", None), str):
            old = item.old_text if isinstance(getattr(item, "old_text", None), str) else None
            lines += difflib.unified_diff(
                (old or "").splitlines(),
                item.new_text.splitlines(),
                fromfile=str(item.path) if old is not None else "/dev/null",
                tofile=str(item.path),
                lineterm="",
            )
    if lines:
        return "diff", "\n".join(line or " " for line in lines)
    raw = getattr(tool_call, "raw_input", None)
    command = raw.get("command") if isinstance(raw, dict) else None
    if isinstance(command, str) and command:
        return "command", cli_preview("Bash", {"command": command})  # as Claude Code's card shows one
    places = [
        f"{place.path}:{place.line}" if getattr(place, "line", None) is not None else str(place.path)
        for place in getattr(tool_call, "locations", None) or []
    ]
    return "text", "\n".join(places)


def _option(options: list[Any], *kinds: str) -> Any:
    """The first of the agent's options of the first of `kinds` it offers (None: none of them)."""
    for kind in kinds:
        for option in options:
            if getattr(option, "kind", None) == kind:
                return option
    return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("notebook_tools")
    except PackageNotFoundError:
        return "0"
