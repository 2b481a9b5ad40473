"""The agent: request -> message -> run tools -> append results -> next, with pauses.

A facade over parts built by composition, each readable and testable alone (see the package
docstring). Every change to the session goes through one pure transition that leaves it valid
or raises; when the model calls a frontend tool the loop runs the same reply's backend calls,
holds their results, saves, and returns `stop_reason="awaiting_frontend_tools"`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import anthropic
from typing_extensions import Unpack

from .._exceptions import AgentBusyError, NothingToRetryError, SessionNotFoundError, ToolResultError
from ..api._options import OptionArgs, RequestOptions
from ..events._bus import EventBus
from ..mcp._border import MCPCompletion, MCPHandler
from ..mcp._listing import MCPTools
from ..mcp._server import MCPServer
from ..results import KeptResults
from ..session import _transitions as tr
from ..session._state import AgentState, PendingFrontendTool, RunResult, ToolResult
from ..session._turns import add_continue_note, end_pause, start_turn
from ..stores._store import InMemoryStore, SessionStore
from ..tools._approvals import ApprovalDecision, ApprovalMode
from ..tools._plugins import Plugin
from ..tools._schemas import warm_up_validator
from ..tools._server_tools import split_api_tools
from ..tools._tool import Tool
from ..tools._toolset import Toolset, loose_tools
from ._answering import Answering
from ._call_runner import CallRunner
from ._loop import Loop
from ._manual_runs import ManualRuns
from ._settings import PartAttribute, Settings
from ._stopping import Stopping
from ._toolset_control import ToolsetControl
from ._writer import PluginData, SessionWriter

__all__ = ["DEFAULT_MODEL", "Agent"]

DEFAULT_MODEL = os.environ.get("NOTEBOOK_TOOLS_MODEL", "claude-sonnet-4-6")


class Agent:
    """Runs Claude with backend and frontend tools, pausing when a person must answer.

    Args:
        client: Any `anthropic.AsyncAnthropic`; by default one built from the
            environment (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
        model: The model name.
        system: The system prompt (cached with `cache_control`).
        tools: Backend tools (`@tool` functions, or plain functions to wrap).
        frontend_tools: Schema-only tools a person answers.
        store: Where sessions are saved at every change (in memory by default).
        max_turns: Most API requests one `run`/`resume` call makes.
        max_tokens: `max_tokens` of each request.
        max_result_chars: Largest text a tool result may carry: a frontend answer over
            it is refused, a backend result is truncated with a notice.
        stream_retries: How often a response cut off mid-stream is requested again.
        retry_delay: Seconds before the first such retry (doubled each time).
        approval_mode: For calls whose tool `needs_approval`: "interactive" pauses with
            stop_reason "awaiting_approval"; "approve_all" and "auto_deny" decide alone.
            `Blocked` calls are refused in every mode.
        plugins: Groups of tools in every session from its start (`nt.Plugin`); a collapsed one is a
            single container tool until the model calls it.
        available_plugins: Plugins known by name but not offered until a tool result injects them.
        collapse_frontend_tools: Put every frontend tool of `frontend_tools=` in one collapsed
            plugin, "frontend_tools".
        frontend_instructions: Join the system prompt while frontend tools are offered.
        hidden_tools: Tools not offered until a tool result shows them.
        mcp_servers: `nt.MCPServer`s, each offered as a plugin named after it (started on first use).
        **options: Request options of every turn (`run(..., **options)` changes them for one turn):
            thinking, effort, tool_choice, temperature, top_p, top_k, stop_sequences, metadata,
            service_tier, betas, cache_ttl, context (`nt.ContextBudget`), request_extra; see
            `nt.RequestOptions`. What the API would refuse is a `ConfigurationError` here.

    `tools=` also takes server tools (`nt.server_tool("web_search")`, or the SDK's tool param dict).
    """

    def __init__(
        self,
        client: anthropic.AsyncAnthropic | None = None,
        *,
        model: str = DEFAULT_MODEL,
        system: str | None = None,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        frontend_tools: Sequence[Tool | Callable[..., Any]] = (),
        store: SessionStore | None = None,
        max_turns: int = 25,
        max_tokens: int = 4096,
        max_result_chars: int = 100_000,
        stream_retries: int = 2,
        retry_delay: float = 0.5,
        approval_mode: ApprovalMode = "interactive",
        plugins: Sequence[Plugin] = (),
        available_plugins: Sequence[Plugin] = (),
        collapse_frontend_tools: bool = False,
        frontend_instructions: str | None = None,
        hidden_tools: Sequence[str] = (),
        mcp_servers: Sequence[MCPServer] = (),
        **options: Unpack[OptionArgs],
    ) -> None:
        tools, server_tools = split_api_tools(tools)
        self.settings = Settings(
            client=client if client is not None else anthropic.AsyncAnthropic(),
            model=model,
            system=system,
            max_turns=max_turns,
            max_tokens=max_tokens,
            max_result_chars=max_result_chars,
            stream_retries=stream_retries,
            retry_delay=retry_delay,
            approval_mode=approval_mode,
            options=RequestOptions.build(**options),
            server_tools=server_tools,
        )
        self.writer = SessionWriter(store if store is not None else InMemoryStore(), EventBus())
        self.toolset = Toolset(
            loose_tools(tools, frontend_tools),
            plugins,
            available_plugins,
            collapse_frontend_tools=collapse_frontend_tools,
            frontend_instructions=frontend_instructions,
            hidden_tools=hidden_tools,
        )
        self.toolset.reserve([t["name"] for t in server_tools], "server tool")
        for plugin in (*plugins, *available_plugins):  # where a plugin keeps its own state
            plugin.bind(PluginData(self.writer))
        self.tools: dict[str, Tool] = self.toolset.tools
        """Every tool the agent knows, in plugins or not (a plugin injected later adds its own)."""
        self.results = KeptResults()
        """What tools returned, live (a DataFrame, a figure), by tool_use_id: `agent.results[id].value`."""
        self.control = ToolsetControl(self.writer, self.toolset, self.settings)
        self.runner = runner = CallRunner(self.writer, self.tools, self.results, self.settings)
        self.loop = Loop(self.writer, self.settings, self.control, runner)
        if mcp_servers:
            self.loop.mcp = mcp = MCPTools(self.toolset, mcp_servers, self.writer.announce)
            self.control.unlisted = lambda: bool(mcp.unlisted)
        self.answering = Answering(self.writer, self.control, self.settings)
        self.manual = ManualRuns(self.writer, self.control, runner)
        self.stopping = Stopping(self.writer)
        self.check_options(self.settings.options)

    client = PartAttribute[anthropic.AsyncAnthropic]()
    model = PartAttribute[str]()
    system = PartAttribute["str | None"]()
    max_turns = PartAttribute[int]()
    max_tokens = PartAttribute[int]()
    max_result_chars = PartAttribute[int]()
    stream_retries = PartAttribute[int]()
    retry_delay = PartAttribute[float]()
    approval_mode = PartAttribute[ApprovalMode]()

    state = PartAttribute[AgentState](of="writer")
    """The session this agent holds (its writer's)."""
    store = PartAttribute[SessionStore](of="writer")
    """Where the session is saved at every change."""
    events = PartAttribute[EventBus](of="writer")
    """The bus every display and action event of this agent's sessions goes through."""

    @property
    def agent_uuid(self) -> str:
        """The id of the session this agent holds."""
        return self.writer.agent_uuid

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, agent_uuid={self.agent_uuid!r}, status={self.state.status!r})"

    @property
    def pending_frontend_tools(self) -> list[PendingFrontendTool]:
        """Frontend calls waiting for answers."""
        return list(self.state.pending_frontend_tools)

    # -- sessions ----------------------------------------------------------------------------

    def load(self, agent_uuid: str) -> AgentState:
        """Switch this agent to a saved session (also: reload it after a `StaleSessionError`)."""
        self.writer.refuse_while_busy("cannot switch sessions while the agent is running")
        state = self.store.load(agent_uuid)
        if state is None:
            raise SessionNotFoundError(agent_uuid)
        self.state = tr.check_invariant(state)
        self.results.clear()  # live values of another session
        self.control.end_calls_of_missing_tools()
        return self.state

    def new_session(self) -> str:
        """Start a fresh, empty session; returns its agent_uuid."""
        self.writer.refuse_while_busy("cannot start a session while the agent is running")
        self.state = AgentState()
        self.results.clear()
        return self.agent_uuid

    def detach(self) -> None:
        """The process is going away (a kernel shutdown or restart): leave the session as saved.

        From now on a cancelled call does not close the open calls as "interrupted": a paused
        session stays paused in the store, exactly as after a crash, and resumes elsewhere.
        """
        self.stopping.detached = True

    # -- turns -------------------------------------------------------------------------------

    async def run(
        self,
        prompt: str | Iterable[dict[str, Any]],
        *,
        expand: Iterable[str] = (),
        **options: Unpack[OptionArgs],
    ) -> RunResult:
        """Send a user message and run the loop until the turn ends or pauses.

        Args:
            prompt: The message (text, or Messages API content blocks).
            expand: Plugins to expand before the first request (they stay expanded).
            **options: Request options for this turn only (see `Agent`): every request of the turn
                sends them, resumes after a restart too. Refused ones raise `ConfigurationError`.
        """
        warm_up_validator()
        blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
        chosen = self.settings.options.merged(**options)
        self.check_options(chosen)

        async def body() -> RunResult:
            # A message after a paused server-tool turn gives the pause up (never lost, never refused).
            state, changes = self.control.pre_expand(end_pause(self.state), expand)
            state = tr.add_user_message(state, blocks)
            await self.writer.commit(start_turn(state, chosen.model_dump(mode="json")))
            for change in changes:
                await self.writer.publish(change)
            return await self.loop.drive()

        return await self.stopping.guarded(body)

    async def resume(
        self,
        tool_results: Iterable[ToolResult | ApprovalDecision | Mapping[str, Any]],
        agent_uuid: str | None = None,
    ) -> RunResult:
        """Answer every pending frontend call (or decide every pending approval) and run on.

        Raises:
            ToolResultIdsError: the ids are not exactly the pending set; nothing changed.
            InvalidToolResultError: a result has the wrong type, size or shape; nothing changed.
            SessionNotFoundError: `agent_uuid` is not in the store.
            StaleSessionError: another writer resumed this pause first; nothing changed.
        """
        items = list(tool_results)
        previous = self.state
        if agent_uuid is not None and agent_uuid != self.agent_uuid:
            self.load(agent_uuid)

        async def body() -> RunResult:
            await self.loop.prepare()  # an MCP server's tools, listed before their calls are answered
            try:
                await self.answering.apply(items, complete=True)
            except ToolResultError:
                self.state = previous  # a refused resume does not even switch sessions
                raise
            return await self.loop.drive()

        return await self.stopping.guarded(body)

    async def accept(self, tool_results: Iterable[ToolResult | ApprovalDecision | Mapping[str, Any]]) -> None:
        """Take answers (or decisions) for SOME of the pending calls and save them; run nothing.

        A front end calls this as each answer arrives, so a restart asks only what is still
        open; when the last one is in, `continue_turn()` carries on.

        Raises:
            ToolResultIdsError, InvalidToolResultError: as for `resume`; nothing changed.
        """
        items = list(tool_results)
        with self.writer.exclusive():
            await self.loop.prepare()
            await self.answering.apply(items, complete=False)

    async def continue_turn(self) -> RunResult:
        """Carry on from where the session stands.

        After a failed request, answers given with `accept`, a restart while backend calls ran (they
        run again: at-least-once), a reply cut off at `max_tokens` or by the context window (Claude is
        asked to go on), or a paused server-tool turn (continued without a user message). A session
        paused on unanswered calls returns its pause again.
        """

        async def body() -> RunResult:
            limit = self.state.continuation
            if limit in ("max_tokens", "model_context_window_exceeded"):
                name = "max_tokens" if limit == "max_tokens" else "context window"
                await self.writer.commit(add_continue_note(self.state, name))
            return await self.loop.drive()

        return await self.stopping.guarded(body)

    @property
    def retryable(self) -> bool:
        """Whether `retry()` has a request to make again.

        A failed request leaves the history ending with the person's message or tool results, or calls queued.
        """
        last = self.state.messages[-1] if self.state.messages else None
        return last is not None and (last["role"] == "user" or bool(self.state.queued_calls))

    async def retry(self) -> RunResult:
        """Request again after a request failed (the history ends with the user's message).

        Raises:
            NothingToRetryError: the last turn ended with the model's reply (a Stop after the reply was
                whole leaves it so): nothing failed, and the session takes a new message.
        """
        if not self.retryable:
            raise NothingToRetryError()
        return await self.continue_turn()

    def paused_result(self) -> RunResult:
        """The `RunResult` of the current pause (to wait for its answers again, e.g. after a restart)."""
        if self.state.status not in ("awaiting_frontend_tools", "awaiting_approval"):
            raise AgentBusyError("the session is not paused on frontend tools or approvals")
        return self.loop.result(self.state.status)

    def interrupt(self) -> None:
        """Stop the running call as soon as possible (streaming stops at the next event)."""
        self.stopping.interrupt()

    def cancel_pending(self, reason: str = tr.INTERRUPTED_ANSWER) -> list[ToolResult]:
        """Close every open call (frontend, approval, or not yet run) with an error result; no request.

        The history stays valid (it ends with the user's tool results) and the next
        `run` adds its message to that same user turn.
        """
        return self.stopping.cancel_pending(reason)

    # -- its tool set -------------------------------------------------------------------------

    def check_options(self, options: RequestOptions) -> None:
        """Raise `ConfigurationError` when the API would refuse `options` with these tools and limits."""
        tools = [*self.control.tool_definitions(), *self.settings.server_tools]
        options.check(self.settings.max_tokens, tools)

    async def run_manual(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a tool by hand (mode "manual" or "both"); the model hears of it with the next message."""
        return await self.manual.run(name, arguments)

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The `tools` the next request offers (containers of collapsed plugins, expanded tools)."""
        return self.control.tool_definitions()

    def system_prompt(self) -> str:
        """The system prompt of the next request: `system`, then plugin and skill instructions and context."""
        return self.control.system_prompt()

    @property
    def plugins(self) -> list[dict[str, Any]]:
        """The plugins of this session: name, description, expanded, tools, skills (and which are active)."""
        return self.control.plugins

    def expand_plugin(self, name: str) -> str:
        """Expand a plugin by hand; the model is told with the next message. Returns what it is told."""
        return self.control.expand_plugin(name)

    def collapse_plugin(self, name: str) -> str:
        """Collapse a plugin by hand (its skills end); the model is told with the next message."""
        return self.control.collapse_plugin(name)

    def reset_toolset(self) -> None:
        """Every plugin, skill, tool and context back to how the agent's definitions start."""
        self.control.reset_toolset()

    def add_tools(self, tools: Iterable[Tool]) -> None:
        """Offer more tools from now on (e.g. a web client's own frontend tools for one request).

        Raises:
            ToolDefinitionError: a name is taken by a tool, plugin or skill the agent has.
        """
        self.control.add_tools(tools)

    # -- its MCP servers -----------------------------------------------------------------------

    @property
    def mcp_servers(self) -> list[MCPServer]:
        """The MCP servers given with `mcp_servers=`."""
        return list(self.loop.mcp.servers) if self.loop.mcp else []

    def set_mcp_handlers(
        self,
        elicit: MCPHandler | None = None,
        sample: MCPHandler | None = None,
        completed: MCPCompletion | None = None,
        authorize: MCPHandler | None = None,
    ) -> None:
        """Who answers the servers' elicitation and sampling requests: `(server name, params) -> result`.

        `completed(server name, elicitationId)` hears that a URL elicitation's page is done;
        `authorize(server name, {"url": ...})` asks the person to sign in where a server wants OAuth.
        """
        for server in self.mcp_servers:
            server.elicitation_handler = elicit
            server.sampling_handler = sample
            server.completion_handler = completed
            server.authorization_handler = authorize

    async def aclose(self) -> None:
        """Stop the agent's MCP servers (each starts again on its next use)."""
        if self.loop.mcp is not None:
            await self.loop.mcp.aclose()
