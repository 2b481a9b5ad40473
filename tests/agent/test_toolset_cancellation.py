"""Cancelling a run while tools that change the tool set run: every call answered, no late change applied."""

import asyncio
import contextlib

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.readiness import CEILING, until_async
from tests.support.toolset_agent import body_ok, every_call_answered, loose, make, names, run


def test_cancel_while_a_backend_tool_returning_augmented_runs():
    started = asyncio.Event()

    @nt.tool
    async def slow_aug() -> nt.Augmented:
        """Slow and changes things."""
        started.set()
        await asyncio.sleep(30)
        return nt.Augmented("done", expand=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("slow_aug", id="s"), t.tool_use("group_b", id="g")),
        t.reply("after"),
        tools=[loose, slow_aug],
    )

    async def main():
        task = asyncio.create_task(agent.run("go"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert every_call_answered(agent.state)
    assert agent.state.toolset.expanded == {"group_b": True}  # the container call was committed
    run(agent.run("again"))
    body_ok(script)
    assert "gamma" in names(script.requests[1]) and "alpha" not in names(script.requests[1])


def test_interrupt_while_tool_runs_then_continue():
    started = asyncio.Event()

    @nt.tool
    async def slow_aug() -> nt.Augmented:
        """Slow and changes things."""
        started.set()
        await asyncio.sleep(0.3)
        return nt.Augmented("done", expand=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("slow_aug", id="s1"), t.tool_use("slow_aug", id="s2")),
        t.reply("after"),
        t.reply("after2"),
        tools=[loose, slow_aug],
    )

    async def main():
        task = asyncio.create_task(agent.run("go"))
        await started.wait()
        agent.interrupt()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run(main())
    assert every_call_answered(agent.state)
    run(agent.run("again"))
    body_ok(script)


@pytest.mark.parametrize("cancel_at", range(0, 24))
def test_cancel_at_every_await_point_leaves_a_valid_session(cancel_at):
    """Cancel on the n-th published event; the session then takes a new run with a valid request."""

    @nt.tool
    async def changer() -> nt.Augmented:
        """Changes."""
        await asyncio.sleep(0)
        return nt.Augmented("did", expand=["group_b"], hide=["loose"])

    agent, script = make(
        t.turn(t.tool_use("group_a", id="g"), t.tool_use("changer", id="c")),
        t.turn(t.tool_use("only_alpha", id="s"), t.tool_use("gamma", id="gm")),
        t.reply("done"),
        t.reply("recovered"),
        t.reply("recovered2"),
        tools=[loose, changer],
    )
    count = {"n": 0}

    async def main():
        task = None

        async def listener(event):
            count["n"] += 1
            if count["n"] == cancel_at + 1 and task is not None:
                task.cancel()

        agent.events.subscribe(listener)
        task = asyncio.create_task(agent.run("go"))
        with contextlib.suppress(asyncio.CancelledError):
            await task

    run(main())
    assert every_call_answered(agent.state)
    run(agent.run("again"))
    body_ok(script)
    assert every_call_answered(agent.state)


def test_sync_tool_cancelled_in_thread_with_augmented():
    import threading

    entered, release, returning = threading.Event(), threading.Event(), threading.Event()

    @nt.tool
    def blocking() -> nt.Augmented:
        """Blocks."""
        entered.set()
        release.wait(CEILING)
        returning.set()
        return nt.Augmented("late", expand=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("blocking", id="b")), t.reply("x"), t.reply("y"), tools=[loose, blocking]
    )

    async def main():
        task = asyncio.create_task(agent.run("go"))
        await until_async(entered.is_set, "the sync tool running in its worker thread")
        task.cancel()
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        finally:
            release.set()  # only after the cancel has been handled: what the tool returns is late
        await until_async(returning.is_set, "the cancelled tool returning its late change")
        # its worker thread has ended and whatever it handed back to this loop has been handled
        await asyncio.get_running_loop().shutdown_default_executor()
        await asyncio.sleep(0)

    run(main())
    assert every_call_answered(agent.state)
    assert agent.state.toolset == nt.ToolsetState()  # the late change never applied
    run(agent.run("again"))
    body_ok(script)
