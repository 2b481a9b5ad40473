"""Claude Code as an agent the chat drives: every permission it asks for is an approval card.

The Claude Agent SDK (`claude-agent-sdk`, whose wheel ships the Claude Code CLI) asks its host
before each tool call through `can_use_tool`. `ClaudeCode` answers that callback with an approval
prompt of a `PromptBroker`, so the widget, the terminal and the HTTP server show the card alike:
what will run (the Bash command, the file and its diff), and the person allows it once, allows it
always (the CLI's own suggested permission updates go back, so the CLI stops asking), denies it
with a message the model reads, or edits the input before it runs. Its `AskUserQuestion` tool
asks the person instead: each question becomes a select card (several open at once, multi-select
kept) and the answers go back in the tool's input, as the CLI reads them.

The callback never fails open. Whatever goes wrong on our side (an error, a timeout, a Stop, no
front end to ask) the CLI is told "deny" with the reason, never "allow": no failure is left to
reach the CLI as an error reply whose handling would be the CLI's to choose.

The SDK is optional (`pip install "notebook_tools[claude-code]"`): it is imported when a
`ClaudeCode` is made, never by `import notebook_tools`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import hashlib
import json
import logging
import os
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._exceptions import ConfigurationError, NoFrontendError
from ..events._bus import EventBus
from ..events._prompt import PromptKind
from ..prompts._broker import PromptBroker
from ..prompts._in_call import InCallPrompts
from ..session._state import AgentState, PendingFrontendTool, ToolResult
from ..stores._store import SessionStore
from ..tools._approvals import (
    ApprovalDecision,
    ApprovalMode,
    ApprovalPreview,
    ApprovalScope,
    RememberedApproval,
)
from ..tools._builtins import ask_text, select_option
from ..tools._tool import Tool
from ._cli_events import CliEvents
from ._kept import checked_approval_mode, keep, kept

if TYPE_CHECKING:
    from claude_agent_sdk import (
        ClaudeAgentOptions,
        ClaudeSDKClient,
        Message,
        PermissionResult,
        PermissionUpdate,
        ToolPermissionContext,
        Transport,
    )

__all__ = ["EXTRA", "ClaudeCode", "preview"]

log = logging.getLogger("notebook_tools")

EXTRA = 'pip install "notebook_tools[claude-code]"'
"""How to get the Claude Agent SDK (and the CLI inside its wheel)."""

RememberIn = Literal["session", "as_suggested"]
CLI_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")
"""The CLI's own permission modes (the SDK's `PermissionMode`), which decide what it asks at all."""

# What the card's "edit the input" form is built from: the fields a person edits for the tools
# that change things. Other properties are kept (the CLI validates the whole input again).
_SCHEMAS: dict[str, dict[str, Any]] = {
    "Bash": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command that will run."},
            "description": {"type": "string"},
            "timeout": {"type": "number"},
            "run_in_background": {"type": "boolean"},
        },
        "required": ["command"],
    },
    "Write": {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "The file that will be written."},
            "content": {"type": "string", "description": "Its whole new content."},
        },
        "required": ["file_path", "content"],
    },
    "Edit": {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "The file that will be edited."},
            "old_string": {"type": "string"},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean"},
        },
        "required": ["file_path", "old_string", "new_string"],
    },
}
_ANY_INPUT: dict[str, Any] = {"type": "object"}


def _sdk() -> Any:
    try:
        import claude_agent_sdk
    except ImportError as exc:
        raise ConfigurationError(f"ClaudeCode needs the Claude Agent SDK: {EXTRA}") from exc
    return claude_agent_sdk


def _schema_only(**arguments: Any) -> None:
    """Schema-only: a person answers it."""


class ClaudeCode:
    """The Claude Code CLI driven through the Claude Agent SDK, its permissions asked as approval cards.

    Use it as an async context manager (or `start()` / `close()`), then `send` a prompt per turn::

        async with nt.ClaudeCode(cwd="project") as claude:
            messages = await claude.send("Fix the failing test")

    Args:
        cwd: The directory Claude Code works in.
        options: The SDK's `ClaudeAgentOptions` (model, env, allowed tools, permission mode, ...);
            its `can_use_tool` must be unset: this class answers it. `cwd` wins over `options.cwd`.
        broker: Whose front ends show the cards (a new one, on its own event bus, if None).
        approval_timeout: Seconds a card waits before the call is denied as unanswered (None: it
            waits for the person, within the broker's no-front-end policies).
        remember_in: Where an "allow always" rule is kept: "session" (the CLI's session only,
            the default: nothing is written into the project) or "as_suggested" (where the CLI
            suggests, e.g. the project's `.claude/settings.local.json`).
        store: Where the CLI's session id is kept (with the session's usage, the calls remembered
            for it and the conversation as a chat shows it), saved as the session `session` of the
            toolkit's store: a `ClaudeCode` made later (a new kernel) with the same store and
            `session` resumes that conversation (the SDK's `resume=`), and a chat of it shows the
            turns before. None: nothing is kept beyond this object.
        session: The key of that saved session (a new uuid if None; see `self.session`).
        approval_mode: The chat's approval modes, for what the CLI asks: "interactive" (the default:
            a card per ask), "approve_all" (every ask allowed without a card) or "auto_deny" (every
            ask denied without a card; the model reads why). `AskUserQuestion` is a question, not an
            approval: it is asked in every mode. Settable at any time (`claude.approval_mode = ...`);
            the CLI's own modes, which decide what it asks at all, are `options.permission_mode` and
            `set_permission_mode`.
        transport: Makes the SDK `Transport` each connection to the CLI runs on, from the options it
            starts with (None: the SDK's own, the CLI as a subprocess). A cassette's
            (`cassette.claude_code(claude)`) records the CLI's lines or replays them with no CLI.

    Raises:
        ConfigurationError: the SDK is not installed, `options` sets `can_use_tool`, the saved
            session was in another folder (the CLI finds a session by its folder), or a mode is
            not one of these.
    """

    def __init__(
        self,
        cwd: str | Path | None = None,
        *,
        options: ClaudeAgentOptions | None = None,
        broker: PromptBroker | None = None,
        approval_timeout: float | None = None,
        remember_in: RememberIn = "session",
        store: SessionStore | None = None,
        session: str | None = None,
        approval_mode: ApprovalMode = "interactive",
        transport: Callable[[ClaudeAgentOptions], Transport] | None = None,
    ) -> None:
        sdk = _sdk()
        options = options if options is not None else sdk.ClaudeAgentOptions()
        if options.can_use_tool is not None:
            raise ConfigurationError("ClaudeCode answers can_use_tool itself (with approval cards): unset it")
        if remember_in not in ("session", "as_suggested"):
            raise ConfigurationError(f"remember_in must be 'session' or 'as_suggested', not {remember_in!r}")
        if options.permission_mode is not None and options.permission_mode not in CLI_MODES:
            raise ConfigurationError(_cli_mode_error(options.permission_mode))
        self._approval_mode: ApprovalMode = checked_approval_mode(approval_mode)
        self.cwd = Path(cwd if cwd is not None else (options.cwd or ".")).resolve()
        self.options: ClaudeAgentOptions = dataclasses.replace(
            options, cwd=str(self.cwd), can_use_tool=self._can_use_tool
        )
        self.broker = broker if broker is not None else PromptBroker(events=EventBus())
        self.approval_timeout = approval_timeout
        self.remember_in: RememberIn = remember_in
        self.remembered: list[RememberedApproval] = []
        """Calls approved for the session by "remember these arguments" (kept here, not in the CLI)."""
        self.decisions: list[tuple[str, dict[str, Any], PermissionResult]] = []
        """Every answer given to the CLI, in order: (tool name, its input, the SDK's result)."""
        self.session_id: str | None = options.resume
        """The CLI's session id (from its messages; `options.resume` until the first)."""
        self.store = store
        self.session = session or str(uuid.uuid4())
        """The key of this conversation in `store`."""
        self._saved: AgentState | None = None
        self.shown = CliEvents()
        """The CLI's messages as display events, published on the broker's bus as they arrive."""
        self.transport = transport
        """Makes the SDK `Transport` of each connection from its options (None: the SDK's subprocess)."""
        self._client: ClaudeSDKClient | None = None
        self._asking: set[str] = set()
        if store is not None:
            self._load(store)

    def _load(self, store: SessionStore) -> None:
        """Take up the saved session `self.session`: the CLI's session id, usage, remembered calls."""
        state, saved = kept(store, self.session, _KEY, self.cwd, "Claude Code")
        if state is None:
            return
        if self.options.resume is None and isinstance(saved.get("session_id"), str):
            self.session_id = saved["session_id"]
        self.remembered = list(state.approvals)
        self.shown.usage = state.usage
        if self.session_id == saved.get("session_id"):  # not when `options.resume` names another session
            self.shown.history = list(state.messages)  # what a chat shows of the turns before the restart
        self._saved = state

    def _save(self) -> None:
        """Keep the CLI's session id (and usage, remembered calls) in the store, if there is one."""
        if self.store is None or self.session_id is None:
            return
        data = {"session_id": self.session_id, "cwd": str(self.cwd)}
        self._saved = keep(
            self.store, self._saved, self.session, _KEY, data, remembered=self.remembered, shown=self.shown
        )

    @property
    def approval_mode(self) -> ApprovalMode:
        """What the CLI's asks get: a card ("interactive"), allowed ("approve_all"), denied ("auto_deny")."""
        return self._approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None:
        self._approval_mode = checked_approval_mode(mode)  # refused: the mode stays as it was

    async def set_permission_mode(self, mode: str) -> None:
        """Switch the CLI's own permission mode ("default", "acceptEdits", "plan", "dontAsk", ...).

        It decides what the CLI asks at all ("acceptEdits": file edits are not asked; "plan": nothing
        runs). It holds for the running CLI and for one this object starts later (a reconnect).

        Raises:
            ConfigurationError: `mode` is not one of the CLI's modes (nothing changes).
        """
        if mode not in CLI_MODES:
            raise ConfigurationError(_cli_mode_error(mode))
        if self._client is not None:
            await self._client.set_permission_mode(mode)  # type: ignore[arg-type]
        self.options = dataclasses.replace(self.options, permission_mode=mode)  # type: ignore[arg-type]

    def ask_through(self, broker: PromptBroker) -> None:
        """Open the cards in `broker` from now on (a chat's or a terminal's, with its front-end policies).

        Raises:
            ConfigurationError: a card of the present broker is still open.
        """
        if self._asking:
            raise ConfigurationError("ClaudeCode has a card open: answer or stop it before moving its cards")
        self.broker = broker

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the CLI (a process of its own) and connect to it."""
        if self._client is not None:
            return
        options = self.options
        launcher = _own_session_launcher(options.cli_path)
        if launcher is not None:  # a Ctrl+C or a kernel interrupt must not reach the CLI (see there)
            options = dataclasses.replace(options, cli_path=launcher)
        if self.session_id is not None and options.resume != self.session_id:
            # (re)connecting after a turn was cut or the CLI closed: the conversation goes on
            options = dataclasses.replace(options, resume=self.session_id, continue_conversation=False)
        client = _sdk().ClaudeSDKClient(
            options, transport=self.transport(options) if self.transport is not None else None
        )
        await client.connect()
        if self.options.permission_mode not in (None, options.permission_mode):  # switched while it connected
            await client.set_permission_mode(self.options.permission_mode)
        self._client = client

    async def close(self) -> None:
        """Close every open card (the calls are denied) and end the CLI."""
        self._cancel_cards()
        client, self._client = self._client, None
        if client is not None:
            await client.disconnect()

    async def __aenter__(self) -> ClaudeCode:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- turns ---------------------------------------------------------------------------------

    async def stream(self, prompt: str) -> AsyncIterator[Message]:
        """Send `prompt` and yield the CLI's messages up to the turn's `ResultMessage` (included).

        Each message is also published on the broker's event bus as display events (`CliEvents`), so a
        chat or a terminal on that bus shows the turn as it goes.
        """
        await self.start()
        assert self._client is not None
        await self._publish(self.shown.prompt(prompt))
        await self._client.query(prompt)
        async for message in self._client.receive_response():
            known, self.session_id = self.session_id, getattr(message, "session_id", None) or self.session_id
            events = self.shown(message)  # (the turn's usage is counted here)
            if self.session_id != known or type(message).__name__ == "ResultMessage":
                self._save()
            await self._publish(events)
            yield message

    async def _publish(self, events: list[Any]) -> None:
        for event in events:
            await self.broker.events.publish(event)

    async def send(self, prompt: str) -> list[Message]:
        """Send `prompt` and return the turn's messages (the last is its `ResultMessage`)."""
        return [message async for message in self.stream(prompt)]

    async def interrupt(self) -> None:
        """Stop the running turn: open cards close (their calls denied) and the CLI is interrupted."""
        self._cancel_cards()
        if self._client is not None:
            await self._client.interrupt()

    def _cancel_cards(self) -> None:
        """Stop, as the chat's Stop does it: the broker's open prompts are cancelled (ours deny)."""
        if self._asking:
            self.broker.cancel_open()

    # -- permissions ---------------------------------------------------------------------------

    async def _can_use_tool(
        self, name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        """The SDK's permission callback: the person's answer, or deny. Never raises, never fails open."""
        from claude_agent_sdk import PermissionResultDeny  # (loaded by __init__)

        try:
            result: PermissionResult = await self._decide(name, tool_input, context)
        except asyncio.CancelledError:
            # The SDK cancels this task when the CLI withdraws its request or the client closes; it
            # then writes no answer at all, so the CLI runs nothing. Recorded as a deny; the
            # cancellation goes on (swallowing it would answer a request the CLI gave up).
            self.decisions.append((name, tool_input, PermissionResultDeny(message=_WITHDRAWN)))
            raise
        except Exception as exc:  # whatever failed on our side, the call is denied
            log.warning("notebook_tools: denying %s: the approval failed: %r", name, exc)
            result = PermissionResultDeny(
                message=f"Denied: the approval card failed ({type(exc).__name__}: {exc}); {name} was not run."
            )
        self.decisions.append((name, tool_input, result))
        return result

    async def _decide(
        self, name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        from claude_agent_sdk import (
            PermissionResultAllow,
            PermissionResultDeny,
            PermissionUpdate,
        )
        from claude_agent_sdk.types import PermissionRuleValue

        if name == "AskUserQuestion":  # not a permission: the person's answers go back as its input
            return await self._questions(tool_input, context)
        if any(rule.covers(name, tool_input) for rule in self.remembered):
            return PermissionResultAllow()
        if self._approval_mode == "approve_all":
            return PermissionResultAllow()
        if self._approval_mode == "auto_deny":
            return PermissionResultDeny(message=_AUTO_DENIED.format(name=name))
        suggestions = self._suggested(context.suggestions)
        tool = self._card_tool(name, tool_input, context, suggestions)
        prompt_id = self._prompt_id(context.tool_use_id)
        [result] = await self._ask([(tool, prompt_id, tool_input)], "approval")
        if result.is_error:  # timed out, skipped, stopped, nobody there: the call does not run
            stopped = result.content == _STOPPED  # Stop: the CLI ends the turn too
            return PermissionResultDeny(message=f"Denied: {result.content}", interrupt=stopped)
        decision = ApprovalDecision.model_validate_json(str(result.content))
        if not decision.approved:
            said = decision.reason.strip() or "The user denied this tool call."
            return PermissionResultDeny(message=said)
        updates: list[PermissionUpdate] | None = None
        if decision.remember == "scope":
            updates = suggestions
        elif decision.remember == "tool":
            rule = PermissionRuleValue(tool_name=name)
            updates = [
                PermissionUpdate(type="addRules", rules=[rule], behavior="allow", destination="session")
            ]
        elif decision.remember == "arguments":
            self.remembered.append(RememberedApproval(tool=name, input=dict(tool_input)))
        edited = decision.edited_input
        return PermissionResultAllow(
            updated_input=dict(edited) if edited is not None and edited != tool_input else None,
            updated_permissions=updates,
        )

    async def _questions(
        self, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        """`AskUserQuestion`: each question a select card (a text card without options), all open at once.

        The CLI reads the answers from the input it is given back: `answers` maps each question's
        text to the chosen label (several joined by ", "). A skipped, timed-out or stopped question
        denies the call with that reason, so the model reads that it went unanswered.
        """
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        questions = tool_input.get("questions")
        if not isinstance(questions, list) or not questions:
            return PermissionResultDeny(message="Denied: AskUserQuestion came without questions.")
        base = self._prompt_id(context.tool_use_id)
        cards, texts, names = [], [], set[str]()
        for number, question in enumerate(questions, 1):
            tool, arguments = _question_card(question, self._card_name("AskUserQuestion", names))
            names.add(tool.name)
            cards.append((tool, f"{base}_q{number}", arguments))
            texts.append(str(question["question"]))  # the CLI's key for its answer
        results = await self._ask(cards, None)  # each of its own kind: select, or text
        failed = next((r for r in results if r.is_error), None)
        if failed is not None:
            return PermissionResultDeny(
                message=f"The user did not answer: {failed.content}", interrupt=failed.content == _STOPPED
            )
        answers = {}
        for (_, _, arguments), question, result in zip(cards, texts, results, strict=True):
            text = str(result.content)
            answers[question] = ", ".join(json.loads(text)) if arguments.get("multiple") else text
        return PermissionResultAllow(updated_input={**tool_input, "answers": answers})

    def _suggested(self, suggestions: list[PermissionUpdate]) -> list[PermissionUpdate]:
        """The CLI's suggested updates for "allow always", kept where `remember_in` says."""
        if self.remember_in == "as_suggested":
            return list(suggestions)
        return [dataclasses.replace(s, destination="session") for s in suggestions]

    def _card_tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        context: ToolPermissionContext,
        suggestions: list[PermissionUpdate],
    ) -> Tool:
        """The card's tool: the CLI's headline, what will run as its preview, the suggestions as its scope."""
        headline = context.title or (
            f"Claude Code wants to use {context.display_name or name}"
            + (f": {context.description}" if context.description else "")
        )
        kind: Literal["command", "diff"] = "command" if name == "Bash" else "diff"
        shown = ApprovalPreview.clipped(kind, preview(name, tool_input, self.cwd))
        blocked = f"path: {context.blocked_path}" if context.blocked_path else ""
        reasons = tuple(r for r in (context.decision_reason, blocked) if r)
        scope = (
            ApprovalScope(
                key=json.dumps([s.to_dict() for s in suggestions], sort_keys=True)[:200],
                label=_describe(suggestions)[:300],
                reasons=reasons,
            )
            if suggestions
            else None
        )
        return Tool(
            _schema_only,
            name=self._card_name(name),
            description=headline,
            executor="frontend",
            category="claude_code",
            input_schema=_SCHEMAS.get(name, _ANY_INPUT),
            approval_scope=(lambda _arguments: scope) if scope is not None else None,
            approval_preview=(lambda _arguments: shown) if shown is not None else None,
        )

    def _card_name(self, name: str, also: set[str] | None = None) -> str:
        """The card's tool name: the CLI's, numbered while another card of it is open (or in `also`)."""
        base = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:60] or "tool"
        taken, candidate, n = self.broker.tools.maps[0], base, 1
        while candidate in taken or candidate in (also or ()):
            n += 1
            candidate = f"{base}_{n}"
        return candidate

    def _prompt_id(self, tool_use_id: str | None) -> str:
        base = tool_use_id or f"cc_{uuid.uuid4().hex[:12]}"
        candidate, n = base, 1
        while candidate in self.broker.prompts or candidate in self._asking:  # the CLI asked again
            n += 1
            candidate = f"{base}_{n}"
        return candidate

    async def _ask(
        self, cards: list[tuple[Tool, str, dict[str, Any]]], kind: PromptKind | None
    ) -> list[ToolResult]:
        """Open the cards (tool, prompt id, arguments) at once and wait for every answer.

        Stop ends them all unanswered (`_STOPPED`); so does "fail" with no front end (its message).
        """
        own = self.broker.tools.maps[0]
        calls = []
        for tool, prompt_id, arguments in cards:
            own[tool.name] = tool
            self._asking.add(prompt_id)
            calls.append(
                PendingFrontendTool(
                    tool_use_id=prompt_id, name=tool.name, input=arguments, timeout=self.approval_timeout
                )
            )
        ids = {call.tool_use_id for call in calls}
        stopped = asyncio.Event()

        def on_event(event: Any) -> None:
            prompt = getattr(event, "prompt", None)
            if prompt is not None and prompt.tool_use_id in ids and prompt.status == "cancelled":
                stopped.set()

        def unanswered(text: str) -> list[ToolResult]:
            return [ToolResult(tool_use_id=i, content=text, is_error=True) for i in sorted(ids)]

        unsubscribe = self.broker.events.subscribe(on_event)
        answered = asyncio.ensure_future(self.broker.collect(calls, kind=kind))
        watching = asyncio.ensure_future(stopped.wait())
        try:
            await asyncio.wait([answered, watching], return_when=asyncio.FIRST_COMPLETED)
            if not answered.done():
                answered.cancel()
                self._close(ids, "cancelled")
                return unanswered(_STOPPED)
            return answered.result()
        except NoFrontendError as exc:  # the "fail" policy: nobody can answer
            self._close(ids, "failed")
            return unanswered(str(exc))
        except BaseException:
            answered.cancel()
            self._close(ids, "cancelled")
            raise
        finally:
            watching.cancel()
            unsubscribe()
            for tool, prompt_id, _ in cards:
                own.pop(tool.name, None)
                self._asking.discard(prompt_id)

    def _close(self, prompt_ids: set[str], status: Literal["failed", "cancelled"]) -> None:
        """End our cards still open unanswered (their call is denied; each card shows `status`)."""
        closing = InCallPrompts(self.broker)
        for prompt_id in prompt_ids:
            closing.close(prompt_id, status)


_STOPPED = "stopped by the user (Stop)"
_KEY = "claude_code"
"""Where a saved session keeps the CLI's session id (its `plugin_data`)."""
_WITHDRAWN = "Denied: the request was withdrawn before it was answered."
_AUTO_DENIED = (
    "Denied: this session denies every call that needs approval (approval_mode 'auto_deny'), "
    "so {name} did not run."
)


def _cli_mode_error(mode: object) -> str:
    return f"the CLI's permission mode must be one of {', '.join(map(repr, CLI_MODES))}, not {mode!r}"


def _own_session_launcher(cli_path: str | Path | None) -> str | None:
    """A launcher that starts the bundled CLI in a session of its own (POSIX), or None.

    Ctrl+C in a terminal signals the whole foreground process group, and JupyterLab's "interrupt
    kernel" signals the kernel's group: the CLI, started in that group by the SDK, got the SIGINT
    too and died, so the next message found no CLI. Stop reaches it through `client.interrupt()`
    instead. The launcher calls setsid() and execs the CLI (same process, so the SDK's handle and
    its disconnect still hold). None where the caller named a CLI of their own or there is no setsid.
    """
    if cli_path is not None or not hasattr(os, "setsid"):
        return None
    bundled = Path(_sdk().__file__).parent / "_bundled" / "claude"
    if not bundled.is_file():
        return None
    folder = Path(tempfile.gettempdir()) / f"notebook_tools-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    key = hashlib.sha256(f"{bundled}\0{sys.executable}".encode()).hexdigest()[:16]
    launcher = folder / f"claude-own-session-{key}"
    text = (
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "os.setsid()\n"
        f"os.execv({str(bundled)!r}, [{str(bundled)!r}, *sys.argv[1:]])\n"
    )
    if not launcher.is_file() or launcher.read_text() != text:
        partial = launcher.with_name(f"{launcher.name}.{os.getpid()}")
        partial.write_text(text)
        partial.chmod(0o700)
        partial.replace(launcher)  # atomic: another kernel may start its CLI meanwhile
    return str(launcher)


def _question_card(question: Any, name: str) -> tuple[Tool, dict[str, Any]]:
    """One `AskUserQuestion` question as a card: a select (multi-select kept), or text without options.

    The option descriptions are shown as lines under the question.
    """
    if not isinstance(question, dict) or not isinstance(question.get("question"), str):
        raise ConfigurationError(f"AskUserQuestion sent a question that is not one: {question!r}"[:300])
    options = [o for o in question.get("options") or [] if isinstance(o, dict) and o.get("label")]
    about = "".join(f"\n{o['label']}: {o['description']}" for o in options if o.get("description"))
    header = str(question.get("header") or "Claude Code asks")
    template = select_option if options else ask_text
    tool = Tool(
        _schema_only,
        name=name,
        description=header,
        executor="frontend",
        category="claude_code",
        input_schema=template.input_schema,
        display={"prompt": "select" if options else "text"},
    )
    prompt = question["question"] + about
    arguments: dict[str, Any] = (
        {
            "prompt": prompt,
            "options": [str(o["label"]) for o in options],
            "multiple": bool(question.get("multiSelect")),
        }
        if options
        else {"prompt": prompt, "placeholder": "", "default": "", "multiline": False}
    )
    return tool, arguments


def _describe(suggestions: list[PermissionUpdate]) -> str:
    """What "allow always" covers, in words, from the CLI's suggested permission updates."""
    parts: list[str] = []
    for s in suggestions:
        where = "this session" if s.destination in (None, "session") else f"{s.destination}"
        if s.type in ("addRules", "replaceRules") and s.rules:
            rules = ", ".join(
                f"{r.tool_name}({r.rule_content})" if r.rule_content else f"every {r.tool_name} call"
                for r in s.rules
            )
            parts.append(f"{s.behavior or 'allow'} {rules} ({where})")
        elif s.type == "setMode" and s.mode:
            parts.append(f"switch to {s.mode} mode ({where})")
        elif s.type == "addDirectories" and s.directories:
            parts.append(f"allow access to {', '.join(s.directories)} ({where})")
        else:
            parts.append(f"{s.type} ({where})")
    return "; ".join(parts)


def preview(name: str, tool_input: dict[str, Any], cwd: str | Path = ".") -> str:
    """What a call will do, as lines a card shows under its headline (no line is empty).

    Bash: the command (`$ ` first, `> ` for continuation lines); Write and Edit: a unified diff of
    the file from what is on disk now (a new file diffs from nothing). Other tools: "" (the card
    shows their input).
    """
    if name == "Bash" and isinstance(tool_input.get("command"), str):
        lines = str(tool_input["command"]).split("\n")
        return "\n".join(("$ " if i == 0 else "> ") + line for i, line in enumerate(lines))
    path = tool_input.get("file_path")
    if name not in ("Write", "Edit") or not isinstance(path, str):
        return ""
    file = Path(cwd, path)
    try:
        before = file.read_text(encoding="utf-8") if file.is_file() else ""
    except (OSError, UnicodeDecodeError):
        before = ""
    if name == "Write":
        after = str(tool_input.get("content", ""))
    else:
        old, new = str(tool_input.get("old_string", "")), str(tool_input.get("new_string", ""))
        after = before.replace(old, new) if tool_input.get("replace_all") else before.replace(old, new, 1)
    diff = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        fromfile=path if file.exists() else "/dev/null",
        tofile=path,
        lineterm="",
    )
    return "\n".join(line or " " for line in diff)
