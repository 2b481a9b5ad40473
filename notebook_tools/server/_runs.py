"""One request's run of an agent: a fresh agent on the shared store, its events as they happen.

Every request gets its own `Agent` from the application's factory, on the store all
workers share; a session is loaded by its `agent_uuid`, so any worker (or process, or
machine, with the PostgreSQL store) resumes any pause. Two requests answering one pause
race on the store's compare-and-set: exactly one wins, the other is refused with
`StaleSessionError` before it changed anything.

`Runner.start` returns once the first event is out or the work ended, so a request that
is refused before anything happened (wrong ids, a stale pause, an unknown session) is
answered with a plain HTTP error rather than a stream that starts and then fails. A
client that goes away cancels the work like Stop does: every open call is closed with
an "interrupted" result and the session stays valid for its next message.

With `hold`, a pause on frontend calls does not end the run: the calls' prompts open in
a `FrontendSession` (the one the widget and the terminal hold), answers arrive through
the ack endpoint, and the run carries on when all are in or their timeouts pass. That session
lives as long as the run, so what its calls ask while they run (an MCP server's elicitation or
sampling, the kernel toolset's consent card) is asked of the client the same way (see `_mcp_asks`).
With `asks` (every AG-UI run) the run has that session for its calls' questions only: a pause
still ends the run, and without either a call's question has nobody to ask (a consent card fails
closed, an elicitation is declined).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from .._exceptions import AgentBusyError, ConfigurationError, HTTPRefusal, SessionNotFoundError
from ..agent._agent import Agent
from ..events._events import Status, _Event
from ..frontend._session import FrontendSession
from ..session._state import AgentState, RunResult
from ..session._transitions import open_calls
from ..stores._store import SessionStore
from ..tools._tool import Tool
from ._acks import AckRegistry
from ._client_left import asker, left
from ._leases import BUSY, DEFAULT_LEASE, Leases, load_state, stranded
from ._mailbox import Mailbox
from ._mcp_asks import MCPAsks

__all__ = ["AgentFactory", "Run", "Runner"]

R = TypeVar("R")

AgentFactory = Callable[[], Agent]
_END = object()


class Run:
    """The events of one run as they happen, then its `RunResult` (or the error that ended it)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.result: RunResult | None = None
        self.error: BaseException | None = None
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.started = False
        """Whether anything but a status event happened (then an error is streamed, not refused)."""
        self.asks: MCPAsks | None = None
        """What the run's calls ask while they run (their ids: `asks.ids`); None: nobody can be asked."""
        self.waiting = False
        """A held run waits for acks: its session is paused, and results posted for it may answer it."""
        self.stopping = False
        """A Stop was asked for (POST /agui/stop or /agent/stop): the run ends as "stopped"."""
        self.held: set[str] = set()
        """Frontend calls whose acks any worker can take now: on record in the store and this registry."""
        self.ended = False
        """The run let go of its session (lease released, its last save written): nothing more happens."""
        self._changed = asyncio.Event()
        self.client = asker()
        """Asks whether the client of the request that started it has gone (see `_client_left`)."""

    def mark_held(self, ids: list[str]) -> None:
        """These calls' holder is on record: an ack posted to any worker reaches this run."""
        self.held.update(ids)
        self._changed.set()

    def mark_ended(self) -> None:
        """The run let go of its session."""
        self.ended = True
        self._changed.set()

    async def until_held(self, ids: list[str]) -> None:
        """Wait until these calls are held (or the run ended): only then may a client hear of them."""
        while not (set(ids) <= self.held or self.ended):
            self._changed.clear()  # (no await between the check and the wait: no wake-up is lost)
            await self._changed.wait()

    def stop(self) -> None:
        """Stop the run at its next await point; it ends as "stopped", its open calls closed.

        Also while it waits for acks or a backend tool runs: its task is cancelled, as in a notebook.
        """
        self.stopping = True
        self.agent.interrupt()
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def __aiter__(self) -> AsyncIterator[_Event]:
        """Every event of the run, in order, until it ends; closing early cancels the run."""
        try:
            while True:
                item = await self.queue.get()
                if item is _END:
                    return
                yield item
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Cancel the run if it is still going (the client went away): Stop semantics."""
        task = self.task
        if task is not None and not task.done():
            if not task.cancelling():  # (a second cancel would cut the first one's cleanup short)
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class Runner:
    """Makes agents on the shared store and runs them for requests.

    Args:
        make_agent: Returns a new `Agent` (its `store` is replaced by the shared one).
        store: Where every worker saves and loads sessions.
        acks: The process's open frontend calls, for the ack endpoint.
        lease_seconds: How long a run's lease on its session lasts unrenewed.
        ask_timeout: Seconds a question a running call asks waits for its ack (None: until answered,
            Stop, or the client leaves); then it closes unanswered (a consent card sends nothing).
    """

    def __init__(
        self,
        make_agent: AgentFactory,
        store: SessionStore,
        acks: AckRegistry | None = None,
        lease_seconds: float = DEFAULT_LEASE,
        ask_timeout: float | None = None,
    ) -> None:
        self.make_agent = make_agent
        self.ask_timeout = ask_timeout
        self.store = store
        self.acks = acks if acks is not None else AckRegistry()
        self.leases = Leases(store, lease_seconds)
        self.running: dict[str, Run] = {}
        """This worker's runs, by session."""
        self.mailbox = Mailbox(store, self.leases.holder, self.acks, self._stop_here)

    def _stop_here(self, agent_uuid: str) -> bool:
        run = self.running.get(agent_uuid)
        if run is None:
            return False
        run.stop()
        return True

    async def heard(self, agent_uuid: str | None, answer: Callable[[], Awaitable[R]]) -> R:
        """`answer()` (a request's whole answer), and once more if a run whose client left held the session.

        A client that aborts a run and sends its next request at once can be heard first (see
        `_client_left`): that run is cancelled as its stream would cancel it, and the request is
        answered from the session as the client left it (loaded anew: the stop saved it).
        """
        try:
            return await answer()
        except HTTPRefusal as exc:
            busy = self.running.get(agent_uuid) if agent_uuid is not None else None
            if exc.status != 409 or exc.message != BUSY or busy is None or not await left(busy.client):
                raise
        await busy.aclose()
        return await answer()

    async def stop(self, agent_uuid: str) -> dict[str, Any]:
        """Stop the run on session `agent_uuid`, here or on the worker holding it (its answer's body).

        Raises:
            HTTPRefusal: 409, no run is in progress on the session.
        """
        if self._stop_here(agent_uuid):
            return {"ok": True, "stopping": agent_uuid}
        lease = await self.leases.lease(agent_uuid)
        if lease is not None and lease.live and await self.mailbox.forward_stop(agent_uuid, lease.holder):
            return {"ok": True, "stopping": agent_uuid, "elsewhere": True}
        if await self.leases.request_stop(agent_uuid):  # (its holder sees it when it renews the lease)
            return {"ok": True, "stopping": agent_uuid, "elsewhere": True}
        raise HTTPRefusal(409, "no run is in progress on this thread; nothing to stop")

    async def _unchanged(self, agent: Agent, thread: str) -> None:
        """Refuse (409) to run on a session saved since it was loaded: another run moved it on meanwhile."""
        if not self.leases.enabled or agent.state.revision == 0:
            return
        now = await load_state(self.store, thread)
        if now is None or now.revision != agent.state.revision:
            raise HTTPRefusal(409, "another request changed this thread first; nothing was changed")

    async def stranded(self, state: AgentState) -> bool:
        """Whether the session's last run never ended (its worker died): the next request carries it on."""
        return stranded(state, await self.leases.lease(state.agent_uuid))

    def agent(
        self,
        agent_uuid: str | None = None,
        *,
        frontend_tools: Sequence[Tool] = (),
        create: bool = False,
    ) -> Agent:
        """A fresh agent on the shared store, holding the saved session `agent_uuid` or a new one.

        Args:
            agent_uuid: The session to load; None starts a new one.
            frontend_tools: More schema-only tools for this request (AG-UI client tools).
            create: Start a new session with this `agent_uuid` when none is saved.

        Raises:
            SessionNotFoundError: no session `agent_uuid` is saved (and not `create`).
            HTTPRefusal: 409, the session's open calls are of tools this agent lacks (an AG-UI
                client's tools, sent only with AG-UI requests); nothing changed.
        """
        agent = self.make_agent()
        if not isinstance(agent, Agent):
            raise ConfigurationError(f"the agent factory returned {type(agent).__name__}, not nt.Agent")
        agent.store = self.store
        if frontend_tools:
            agent.add_tools(frontend_tools)
        stored = None if agent_uuid is None else self.store.load(agent_uuid)
        if agent_uuid is None:
            agent.new_session()
        elif stored is not None:
            absent = sorted({c.name for c in open_calls(stored)} - set(agent.tools))
            if absent:  # loading would end those calls (and save) before the request is even checked
                raise HTTPRefusal(
                    409, "the session waits for calls of tools this request does not have", tools=absent
                )
            agent.load(agent_uuid)
        elif create:
            agent.state = AgentState(agent_uuid=agent_uuid)
        else:
            raise SessionNotFoundError(agent_uuid)
        return agent

    async def start(
        self,
        agent: Agent,
        work: Callable[[], Awaitable[RunResult]],
        *,
        hold: bool = False,
        asks: bool = False,
    ) -> Run:
        """Start `work` and return its `Run` once its first event is out or it ended.

        Args:
            agent: The agent `work` drives.
            work: The run's turn.
            hold: A pause on frontend calls waits for their acks (the server's own contract).
            asks: Only what a running call asks waits for an ack; a pause ends the run (AG-UI).

        Raises:
            Whatever `work` raised before its first event (a refusal: nothing changed).
        """
        run = Run(agent)
        first = asyncio.Event()
        thread = agent.agent_uuid

        def lost() -> None:  # another worker carries the session on: this run must stop writing
            agent.detach()  # (a cancelled run leaves the session as saved: it is the other worker's now)
            run.error = AgentBusyError("this run's lease lapsed and another worker carries the session on")
            if run.task is not None:
                run.task.cancel()

        busy = self.running.get(thread)
        if (
            busy is not None and not busy.waiting
        ):  # (this worker's runs share its lease: one at a time here too)
            raise HTTPRefusal(409, BUSY)
        holding = self.leases.held(thread, run.stop, lost)
        await holding.__aenter__()  # 409 when another worker runs this session
        try:
            await self._unchanged(agent, thread)
        except BaseException:
            await holding.__aexit__(None, None, None)
            raise
        self.running[thread] = run
        self.mailbox.listen()  # a Stop sent to another worker reaches this run

        def put(event: _Event) -> None:
            run.queue.put_nowait(event)
            if not isinstance(event, Status):
                run.started = True
                first.set()

        unsubscribe = agent.events.subscribe(put)

        session = self._session(run) if hold or asks else None

        async def body() -> None:
            try:
                result = await work()
                while hold and session is not None and result.stop_reason == "awaiting_frontend_tools":
                    result = await self._hold(run, result, session)
                run.result = result
            except asyncio.CancelledError:
                if not run.stopping or run.error is not None:
                    raise  # the client went away (or another worker carries the session on)
                run.result = RunResult(
                    stop_reason="stopped", agent_uuid=agent.agent_uuid, usage=agent.state.usage
                )
            except BaseException as exc:
                run.error = exc
            finally:
                unsubscribe()
                if session is not None:
                    session.close()
                    if run.asks is not None:
                        run.asks.close()
                if self.running.get(thread) is run:
                    del self.running[thread]
                await holding.__aexit__(None, None, None)
                run.mark_ended()
                run.client = None  # (the request it came with is over: hold on to nothing of it)
                run.queue.put_nowait(_END)
                first.set()
                with contextlib.suppress(Exception):  # its MCP servers end with it (each run makes its own)
                    await agent.aclose()

        run.task = asyncio.get_running_loop().create_task(body())
        await first.wait()
        if run.error is not None and not run.started:  # refused before anything happened
            raise run.error
        return run

    def _session(self, run: Run) -> FrontendSession:
        """A run's prompts: what its calls ask while they run, and (held) its pauses' calls.

        An AG-UI run's pauses open prompts here too (the session opens them on the agent's pause
        events) but nothing collects them: no answer, timeout or Stop of the broker reaches the agent,
        whose pause ends the run as before.
        """
        session = FrontendSession(run.agent, ask_timeout=self.ask_timeout)  # (it answers its MCP servers)
        session.broker.seen("http")
        session.broker.frontend_ttl = float("inf")  # the client holding the stream is there until it leaves
        # what its calls ask while they run (an MCP server's questions, a consent card), held and shown
        run.asks = MCPAsks(
            self.acks, session.broker, run.agent.agent_uuid, lambda ids: self._hold_asks(run, ids)
        )
        return session

    async def _hold_asks(self, run: Run, ids: list[str]) -> None:
        """A running call's question is on record for every worker; only then may the stream show it."""
        try:
            await self.mailbox.hold(ids, run.agent.agent_uuid)
        finally:  # (a store that fails here leaves the question answerable on this worker only)
            run.mark_held(ids)

    async def _hold(self, run: Run, result: RunResult, session: FrontendSession) -> RunResult:
        """Wait for the acks of a pause's frontend calls, then carry on."""
        agent = run.agent
        broker = session.broker
        ids = [p.tool_use_id for p in result.pending_frontend_tools]
        self.acks.add(ids, broker)
        await self.mailbox.hold(ids, agent.agent_uuid)  # acks posted to other workers come here
        run.mark_held(ids)  # the stream shows the calls only now (`Run.until_held`)
        try:
            session.restore_prompts()  # the pause happened before this session: its prompts open now
            run.waiting = True
            await session.collect(result.pending_frontend_tools)
        except asyncio.CancelledError:  # the client went away: Stop
            broker.cancel_open()
            agent.cancel_pending()
            raise
        except BaseException:  # e.g. another request answered these calls first: their acks are late
            broker.cancel_open()
            raise
        finally:
            run.waiting = False
            self.acks.finish(ids, broker)  # (this worker answers repeats, wherever they are posted)
        return await agent.continue_turn()
