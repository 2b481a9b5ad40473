"""Serving an external agent (Claude Code, an ACP agent): one live agent per thread, held by this worker.

Our own agent's session lives in the store, and any worker carries it on. An external agent's lives in
a process of its own (the Claude Code CLI, an ACP agent) that one worker drives, so when the app's
factory returns one (anything with `ExternalAgent`'s surface, `nt.ClaudeCode` first), the app keeps
one per thread in memory: made by the factory on the thread's first message, driven turn by turn,
closed when the app shuts down. A server of several workers refuses such a factory
(`python -m notebook_tools serve --workers N`: ConfigurationError), as an ack or a Stop posted to
another worker would find no card and no turn there.

A thread holds the `ClaudeCodeSession` the chat and the terminal drive Claude Code with (its turns,
Stop, the cards in its broker), for any agent of that surface. Everything such an agent asks, its
permission cards as much as its questions, is asked from inside a running call: the CLI waits in its
`can_use_tool` callback while the turn goes on. So every prompt of the thread's broker is an in-call
ask (`MCPAsks(every=True)`, as an MCP server's elicitation is for our own agent): registered with the
app's ack registry under `<card id>.<thread>`, shown by the stream as it opens, answered by
`POST /api/tools/ack`, and the same turn goes on.

A card never fails open. Stop (`POST /agui/stop`, `POST /agent/stop`) interrupts the agent and
cancels its open cards, whose calls are denied; a client that goes away mid-turn is a Stop; the app's
`ask_timeout` (the agent's `approval_timeout` when it has none of its own) closes a card unanswered
and the call is denied; the app shutting down closes every agent, denying what is open. An ack that
comes after any of these is told the card expired (410), and nothing runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from .._exceptions import ConfigurationError, HTTPRefusal
from ..events._events import MessageEvent, TextDelta, _Event
from ..events._reply_events import AssistantBlock, ThinkingDelta
from ..frontend._claude_code import STOP_GRACE, ClaudeCodeSession
from ..prompts._broker import PromptBroker
from ..session._state import AgentState, FrontView, RunResult, Usage
from ._acks import AckRegistry
from ._agui_messages import message_id
from ._client_left import asker, left
from ._leases import BUSY
from ._mcp_asks import MCPAsks

if TYPE_CHECKING:
    from ..external._claude_code import ClaudeCode

__all__ = ["ExternalAgent", "ExternalAgents", "ExternalRun", "ExternalThread", "held_here", "is_external"]

_END = object()


@runtime_checkable
class ExternalAgent(Protocol):
    """What the server needs of an agent that runs elsewhere (`nt.ClaudeCode`, an ACP agent).

    `shown` turns its messages into the toolkit's display events, published on the broker's bus; it
    keeps `history` (the conversation as Messages API messages) and `usage`, and `stopped()` closes
    the calls a Stop cut short.
    """

    session_id: str | None
    approval_timeout: float | None
    shown: Any

    def ask_through(self, broker: PromptBroker) -> None:
        """Open its cards (permission requests, questions) in `broker` from now on."""

    def stream(self, prompt: str) -> AsyncIterator[Any]:
        """Send `prompt`; its messages until the turn ends (also published as display events)."""

    async def interrupt(self) -> None:
        """Stop the running turn: open cards closed (their calls denied), the agent interrupted."""

    async def close(self) -> None:
        """Deny what is open and end the agent's process."""


def takes_thread(factory: Callable[..., Any]) -> bool:
    """Whether `factory` takes a `thread_id` (then it makes an external agent for that thread).

    Such a factory can keep each thread's conversation in a store under the thread's id
    (`nt.ClaudeCode(store=..., session=thread_id)`), so a restarted server takes it up again.
    """
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # (a builtin or C callable: it takes no thread)
        return False
    found = parameters.get("thread_id")
    return found is not None and found.kind in (found.POSITIONAL_OR_KEYWORD, found.KEYWORD_ONLY)


def is_external(agent: object) -> bool:
    """Whether `agent` is an external agent (not `nt.Agent`, whose sessions live in the store)."""
    from ..agent._agent import Agent

    return not isinstance(agent, Agent) and isinstance(agent, ExternalAgent)


class ExternalThread:
    """One thread's external agent, its session (turns, Stop, cards) and the asks its clients answer.

    Args:
        thread_id: The thread (AG-UI `threadId`, the reference contract's `agent_uuid`).
        agent: The agent the factory made for it.
        acks: The app's ack registry (its cards are answered through it).
        ask_timeout: Seconds a card waits for its ack when the agent has no `approval_timeout`.
    """

    def __init__(
        self, thread_id: str, agent: ExternalAgent, acks: AckRegistry, ask_timeout: float | None
    ) -> None:
        self.id = thread_id
        self.agent = agent
        # (ClaudeCodeSession drives any agent of this surface: it uses nothing else of ClaudeCode)
        self.session = ClaudeCodeSession(cast("ClaudeCode", agent), approval_timeout=ask_timeout)
        broker = self.session.broker
        broker.seen("http")
        broker.frontend_ttl = float("inf")  # a client is there until it leaves (then the turn stops)
        self.asks = MCPAsks(acks, broker, thread_id, held_here, every=True)
        self.client_ids: dict[str, str] = {}
        """The client's ids for the person's messages, by their derived id (`msg_<index>`)."""
        self.run: ExternalRun | None = None
        """The turn running or last run."""

    @property
    def running(self) -> bool:
        """Whether a turn is under way."""
        return self.run is not None and not self.run.ended

    def history(self) -> list[dict[str, Any]]:
        """The conversation so far, as Messages API messages."""
        return list(getattr(self.agent.shown, "history", []))

    def usage(self) -> Usage:
        """The session's tokens and cost so far."""
        usage = getattr(self.agent.shown, "usage", None)
        return usage.model_copy() if isinstance(usage, Usage) else Usage()

    def state(self, messages: list[dict[str, Any]] | None = None) -> AgentState:
        """The conversation (or `messages` of it) as a session state, with the client's ids.

        AG-UI's snapshots are made of it.
        """
        return AgentState(
            agent_uuid=self.id,
            messages=self.history() if messages is None else messages,
            front_view=FrontView(client_ids=dict(self.client_ids)),
        )

    def open_asks(self) -> list[Any]:
        """The cards open now (pending prompts this thread asked)."""
        prompts = self.asks.broker.prompts.values()
        return [p for p in prompts if p.status == "pending" and p.tool_use_id in self.asks.ids]


async def held_here(ids: list[str]) -> None:
    """One worker holds the thread: its cards are answerable here the moment they open."""


class ExternalRun:
    """One turn of a thread's external agent: its display events as they happen, then its result."""

    def __init__(self, thread: ExternalThread) -> None:
        self.thread = thread
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.result: RunResult | None = None
        self.error: BaseException | None = None
        self.stopping = False
        """A Stop was asked for: the turn ends as "stopped"."""
        self.ended = False
        self.history_before = thread.history()
        self.usage_before = thread.usage()
        self.client = asker()
        """Asks whether the client of the request that started it has gone (see `_client_left`)."""
        self.streamed: set[tuple[int, int]] = set()
        """Blocks (request, index) the agent streamed as deltas (an ACP agent's): their whole block
        only closes them; a block given whole (Claude Code's) is sent as its one delta."""

    def put(self, event: _Event) -> None:
        """One display event of the turn (from the broker's bus, as it is published)."""
        if isinstance(event, MessageEvent):  # its place in the history, as the snapshots number messages
            event = event.model_copy(update={"index": _position(self.thread.history(), event.message)})
        elif isinstance(event, TextDelta | ThinkingDelta):
            self.streamed.add((event.request, event.index))
        elif isinstance(event, AssistantBlock) and (event.request, event.index) in self.streamed:
            pass  # (streamed already, delta by delta: the block closes it, as for our own agent)
        elif isinstance(event, AssistantBlock) and event.block.get("type") == "thinking":
            # the agent gives whole blocks: a thinking block streams as one delta (a reasoning message
            # in its place, before the reply it belongs to)
            text = str(event.block.get("thinking") or "")
            event = ThinkingDelta(
                text=text, request=event.request, index=event.index, agent_uuid=event.agent_uuid
            )
        self.queue.put_nowait(event)

    def stop(self) -> None:
        """Stop the turn: the agent is interrupted, its open cards cancelled (their calls denied)."""
        self.stopping = True
        self.thread.session.stop()

    async def __aiter__(self) -> AsyncIterator[_Event]:
        """Every event of the turn, in order, until it ends; leaving early stops it (Stop semantics)."""
        try:
            while True:
                item = await self.queue.get()
                if item is _END:
                    return
                yield item
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Stop the turn if it is still going (the client went away) and wait until it ended."""
        task = self.task
        if task is None or task.done():
            return
        self.stop()
        # (the session disconnects an agent that has not ended the turn within its grace periods)
        await asyncio.wait({task}, timeout=2 * STOP_GRACE + 5)


def _position(history: list[dict[str, Any]], message: dict[str, Any]) -> int:
    """Where `message` (just added, so the last one like it) is in `history`."""
    for index in range(len(history) - 1, -1, -1):
        if history[index] == message:
            return index
    return len(history)


class ExternalAgents:
    """This worker's external agents, one per thread, made by the app's factory.

    Args:
        make_agent: The app's factory (it returns an external agent).
        acks: The app's ack registry.
        ask_timeout: Seconds a card waits for its ack when the agent sets no `approval_timeout`
            (None: until it is answered, the turn is stopped or the client leaves).
        first: An agent the factory made already (the one that told the app what it serves).

    A factory that takes a `thread_id` is called with it (see `takes_thread`).
    """

    def __init__(
        self,
        make_agent: Callable[..., Any],
        acks: AckRegistry,
        ask_timeout: float | None,
        first: ExternalAgent | None = None,
    ) -> None:
        self.make_agent = make_agent
        self.acks = acks
        self.ask_timeout = ask_timeout
        self.threads: dict[str, ExternalThread] = {}
        self._spare = first
        self.by_thread = takes_thread(make_agent)
        """The factory takes the thread's id: a thread this worker does not hold may be kept in its store."""

    async def taken_up(self, thread_id: str) -> ExternalThread | None:
        """The thread `thread_id`, held here or (a factory that takes the thread) taken up from its store.

        None when neither: a thread whose agent has no conversation is not kept.
        """
        found = self.threads.get(thread_id)
        if found is not None or not self.by_thread:
            return found
        thread = self.open(thread_id)
        if thread.history():
            return thread
        del self.threads[thread_id]
        with contextlib.suppress(Exception):
            await thread.agent.close()
        return None

    def thread(self, thread_id: str) -> ExternalThread | None:
        """The thread `thread_id`, if this worker holds it."""
        return self.threads.get(thread_id)

    def open(self, thread_id: str | None = None) -> ExternalThread:
        """The thread `thread_id` (a new uuid if None), with a new agent when it has none yet.

        Raises:
            ConfigurationError: the factory returned something else than an external agent, or an
                agent another thread has.
        """
        thread_id = thread_id or str(uuid.uuid4())
        found = self.threads.get(thread_id)
        if found is not None:
            return found
        if self._spare is not None:
            agent, self._spare = self._spare, None
        else:
            agent = self.make_agent(thread_id=thread_id) if self.by_thread else self.make_agent()
        if not is_external(agent):
            raise ConfigurationError(
                f"the agent factory returned {type(agent).__name__}, not an external agent as before"
            )
        if any(held.agent is agent for held in self.threads.values()):  # one conversation each
            raise ConfigurationError("the agent factory must make a new agent per thread, not reuse one")
        thread = ExternalThread(thread_id, agent, self.acks, self.ask_timeout)
        self.threads[thread_id] = thread
        return thread

    async def start(self, thread: ExternalThread, text: str, client_id: str | None = None) -> ExternalRun:
        """Start a turn of the person's `text` (its id the client's `client_id`, when it gave one).

        A turn being stopped (Stop, or its client left: a client that aborts and sends its next message
        at once) is waited for: the agent ends it within its grace periods.

        Raises:
            HTTPRefusal: 409, a turn is under way on the thread.
        """
        current = thread.run if thread.running else None
        if current is not None and not current.stopping and await left(current.client):
            current.stop()  # its client left (its stream has not noticed yet): stopped as it would be
        stopping = current if current is not None and current.stopping else None
        if stopping is not None and stopping.task is not None:
            await asyncio.wait({stopping.task}, timeout=2 * STOP_GRACE + 5)
        if thread.running:
            raise HTTPRefusal(409, BUSY)
        run = ExternalRun(thread)
        if client_id is not None:  # (the agent adds the person's message at the end of its history)
            thread.client_ids[message_id(len(run.history_before))] = client_id
        session = thread.session
        unsubscribe = session.broker.events.subscribe(run.put)
        turn = session.start(session.say(text))

        async def body() -> None:
            try:
                run.result = await turn
            except asyncio.CancelledError:
                if not turn.done():
                    turn.cancel()
                run.error = asyncio.CancelledError("the turn was cancelled")
            except BaseException as exc:  # (the session reported it; the stream says it too)
                run.error = exc
            finally:
                unsubscribe()
                run.ended = True
                run.client = None  # (the request it came with is over: hold on to nothing of it)
                run.queue.put_nowait(_END)

        thread.run = run
        run.task = asyncio.get_running_loop().create_task(body())
        return run

    async def stop(self, thread_id: str) -> dict[str, Any]:
        """Stop the turn on `thread_id` (its answer's body).

        Raises:
            HTTPRefusal: 409, no turn is under way on the thread.
        """
        thread = self.threads.get(thread_id)
        if thread is None or thread.run is None or not thread.running:
            raise HTTPRefusal(409, "no run is in progress on this thread; nothing to stop")
        thread.run.stop()
        return {"ok": True, "stopping": thread_id}

    async def aclose(self) -> None:
        """Close every agent (the app shuts down): open cards are denied, their processes end."""
        threads, self.threads = list(self.threads.values()), {}
        for thread in threads:
            if thread.run is not None:
                with contextlib.suppress(Exception):
                    await thread.run.aclose()
            thread.asks.close()
            thread.session.close()
            with contextlib.suppress(Exception):
                await thread.agent.close()
