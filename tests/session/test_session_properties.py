"""Random sessions with Stops, cancels, crashes and restarts never leave an invalid or wedged session.

Each example is a random program of actions on one agent: messages whose replies mix backend,
frontend and approval calls, tools that raise, unknown tools, invalid inputs, empty replies,
truncated and dropped streams, exhausted API errors, interrupts and cancels after a random number
of event-loop steps (so at random await points), `accept`, `cancel_pending`, retries, crashes
(the task cancelled after `detach()`, as a process that dies) and restarts from the SQLite store.

After every action: the strict scripted API refused no request, the session is valid at rest and
idle or paused on exactly its open calls, and the store holds exactly the agent's state.

NOTEBOOK_TOOLS_PROPERTY_SCALE=20 runs twenty times the examples (the nightly size).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
from typing import Any

import anthropic
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.session import _transitions as tr

SCALE = int(os.environ.get("NOTEBOOK_TOOLS_PROPERTY_SCALE", "1"))
RAN: list[str] = []


# Tools are async: a sync tool runs in a worker thread, whose timing would make examples irreproducible.
@nt.tool
async def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


@nt.tool
async def boom() -> str:
    """Always fails."""
    raise RuntimeError("boom")


@nt.tool
async def slow(steps: int) -> str:
    """Yield to the loop `steps` times.

    Args:
        steps: How long to run.
    """
    for _ in range(steps):
        await asyncio.sleep(0)
    return "slow done"


@nt.tool(needs_approval=True)
async def risky(n: int) -> str:
    """Needs approval.

    Args:
        n: A number.
    """
    await asyncio.sleep(0)
    RAN.append(f"risky {n}")
    return f"risky ran with {n}"


@nt.tool(needs_approval=lambda args: nt.Blocked("negative") if args["n"] < 0 else args["n"] > 5)
async def guarded(n: int) -> str:
    """Blocked below zero, asks above five.

    Args:
        n: A number.
    """
    RAN.append(f"guarded {n}")
    return f"guarded ran with {n}"


TOOLS = [add, boom, slow, risky, guarded]
FRONTEND = [nt.user_confirm, nt.ask_text]
_ids = itertools.count()


def call(draw: Any) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(["add", "bad_add", "boom", "slow", "risky", "guarded", "unknown", "confirm", "text"])
    )
    ident = f"toolu_p{next(_ids)}"
    n = draw(st.integers(-2, 8))
    return {
        "add": lambda: t.tool_use("add", {"a": 1, "b": n}, id=ident),
        "bad_add": lambda: t.tool_use("add", {"a": "one"}, id=ident),
        "boom": lambda: t.tool_use("boom", {}, id=ident),
        "slow": lambda: t.tool_use("slow", {"steps": n * 3}, id=ident),
        "risky": lambda: t.tool_use("risky", {"n": n}, id=ident),
        "guarded": lambda: t.tool_use("guarded", {"n": n}, id=ident),
        "unknown": lambda: t.tool_use("nope", {}, id=ident),
        "confirm": lambda: t.tool_use("user_confirm", {"message": "Go?"}, id=ident),
        "text": lambda: t.tool_use("ask_text", {"prompt": "Name?"}, id=ident),
    }[kind]()


@st.composite
def step(draw: Any) -> t.Step:
    kind = draw(
        st.sampled_from(["calls", "calls", "calls", "text", "empty", "max_tokens", "cut", "drop", "529"])
    )
    calls = [call(draw) for _ in range(draw(st.integers(1, 3)))]
    if kind == "calls":
        return t.turn("Working.", *calls) if draw(st.booleans()) else t.turn(*calls)
    if kind == "text":
        return t.reply("All done.")
    if kind == "empty":
        return t.turn()
    if kind == "max_tokens":
        return t.turn("Let me", *calls, stop_reason="max_tokens")
    if kind == "cut":
        return t.TruncatedStream(t.turn("Cut", *calls), after_events=draw(st.integers(1, 8)))
    if kind == "drop":
        return t.DropStream(t.turn("Dropped", *calls), after_events=draw(st.integers(1, 8)))
    return t.HTTPFault(529)


interrupt_after = st.one_of(st.none(), st.integers(0, 80))
choices = st.lists(st.booleans(), min_size=6, max_size=6)  # approve? edit? for each approval, drawn up front
run_action = st.tuples(st.just("run"), st.lists(step(), min_size=1, max_size=3), interrupt_after)
answer_action = st.tuples(
    st.just("answer"), st.tuples(st.lists(step(), min_size=1, max_size=2), choices), interrupt_after
)
action = st.one_of(
    run_action,
    run_action,
    answer_action,
    answer_action,
    answer_action,
    st.tuples(st.just("retry"), st.lists(step(), min_size=1, max_size=2), interrupt_after),
    st.tuples(st.just("accept_one"), st.tuples(st.just([]), choices), st.none()),
    st.tuples(st.just("cancel_pending"), st.just([]), st.none()),
    st.tuples(st.just("crash"), st.lists(step(), min_size=1, max_size=2), st.integers(0, 80)),
    st.tuples(st.just("restart"), st.just([]), st.none()),
)


class Session:
    """One agent on a SQLite store, with every script it was served."""

    def __init__(self, path: str) -> None:
        self.store = nt.SQLiteStore(path)
        self.scripts: list[t.ScriptedTransport] = []
        self.agent = self.new_agent()

    def new_agent(self) -> nt.Agent:
        return nt.Agent(
            client=t.ScriptedTransport().client(max_retries=0),
            model="claude-test",
            tools=TOOLS,
            frontend_tools=FRONTEND,
            store=self.store,
            stream_retries=1,
            retry_delay=0,
        )

    def serve(self, steps: list[t.Step]) -> None:
        script = t.ScriptedTransport(*steps, t.reply("Finished."))
        self.scripts.append(script)
        self.agent.client = script.client(max_retries=0)

    def answers(self, choices: list[bool]) -> list[Any]:
        draw = itertools.cycle(choices)
        draw_bool = lambda: next(draw)  # noqa: E731
        state = self.agent.state
        if state.pending_approvals:
            return [
                nt.ApprovalDecision(
                    tool_use_id=p.tool_use_id,
                    approved=draw_bool(),
                    reason="not now",
                    edited_input={**p.input, "n": 7} if draw_bool() else None,
                )
                for p in state.pending_approvals
            ]
        return [
            nt.ToolResult(tool_use_id=p.tool_use_id, content="yes" if p.name == "user_confirm" else "Ada")
            for p in state.pending_frontend_tools
        ]

    async def perform(self, make: Any, after: int | None, *, crash: bool = False) -> Any:
        task = asyncio.ensure_future(make())
        if after is not None:
            for _ in range(after):
                if task.done():
                    break
                await asyncio.sleep(0)
            if not task.done():
                if crash:
                    self.agent.detach()
                elif after % 2:
                    self.agent.interrupt()  # the Stop button: interrupt, then cancel
                task.cancel()
        try:
            outcome = await task
            event(f"ended: {getattr(outcome, 'stop_reason', outcome)}")
            return outcome
        except asyncio.CancelledError:
            event("ended: cancelled" + (" (crash)" if crash else ""))
            return "cancelled"
        except (nt.NotebookToolsError, anthropic.APIStatusError) as exc:
            event(f"ended: {type(exc).__name__}")
            return exc

    def check(self, *, crashed: bool = False) -> None:
        refused = [r.errors for s in self.scripts for r in s.refused]
        assert refused == [], refused
        state = self.agent.state
        tr.check_invariant(state)
        stored = self.store.load(state.agent_uuid)
        if stored is not None or state.messages:
            assert stored == state
        if not crashed:
            held = {r.tool_use_id for r in state.held_results}
            open_ids = set(tr.open_call_ids(state))
            if state.status == "awaiting_frontend_tools":
                assert {p.tool_use_id for p in state.pending_frontend_tools} == open_ids - held
            elif state.status == "awaiting_approval":
                waiting = [*state.pending_approvals, *state.deferred_frontend_tools, *state.queued_calls]
                assert {c.tool_use_id for c in waiting} == open_ids - held
            elif state.status == "running":  # answers accepted, approved calls wait for continue_turn()
                waiting = {c.tool_use_id for c in [*state.queued_calls, *state.pending_frontend_tools]}
                assert waiting == open_ids - held
            else:
                assert open_ids == set() and not held


@settings(
    max_examples=150 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(actions=st.lists(action, min_size=1, max_size=12))
def test_random_sessions_stay_valid_and_resumable(tmp_path_factory, actions):
    session = Session(str(tmp_path_factory.mktemp("p") / "s.sqlite"))

    async def main() -> None:
        crashed = False
        for name, steps, after in actions:
            agent = session.agent
            if crashed and name != "restart":
                name = "restart"  # a crashed process is gone: the next thing is a restart
            if name == "restart":
                session.agent = session.new_agent()
                if session.store.load(agent.agent_uuid) is not None:
                    session.agent.load(agent.agent_uuid)
                crashed = False
                if session.agent.state.status == "running":  # calls that were running run again
                    session.serve([])
                    await session.perform(session.agent.continue_turn, None)
            elif name == "cancel_pending":
                session.agent.cancel_pending()
            elif name == "accept_one":
                answers = session.answers(steps[1])[:1]
                if answers:
                    await session.perform(functools.partial(agent.accept, answers), None)
            elif name in ("run", "crash"):
                session.serve(steps)
                outcome = await session.perform(
                    functools.partial(agent.run, "Go on."), after, crash=name == "crash"
                )
                crashed = name == "crash" and outcome == "cancelled"
                if isinstance(outcome, nt.AgentBusyError):
                    assert agent.state.status != "idle" or tr.open_call_ids(agent.state)
            elif name == "retry":
                session.serve(steps)
                await session.perform(agent.continue_turn, after)
            elif name == "answer":
                session.serve(steps[0])
                answers = session.answers(steps[1])
                if answers:
                    await session.perform(functools.partial(agent.resume, answers), after)
                elif agent.state.pending_frontend_tools or agent.state.pending_approvals:
                    raise AssertionError("paused with nothing to answer")
            session.check(crashed=crashed)
        # Whatever happened, the session can always be brought to a clean end.
        if crashed:
            session.agent = session.new_agent()
            if session.store.load(agent.agent_uuid) is not None:
                session.agent.load(agent.agent_uuid)
        session.agent.cancel_pending()
        session.serve([])
        result = await session.agent.run("Wrap up.")
        assert result.stop_reason == "end_turn"
        session.check()

    asyncio.run(main())
