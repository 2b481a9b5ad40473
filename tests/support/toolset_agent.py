"""A scripted agent with two plugins, and checks that every request it sent is one the API accepts."""

import asyncio
import base64

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.api import request_errors

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def run(coro):
    return asyncio.run(coro)


@nt.tool
def alpha(x: str = "") -> str:
    """Alpha tool.

    Args:
        x: Anything.
    """
    return f"alpha {x}"


@nt.tool
def beta() -> str:
    """Beta tool."""
    return "beta"


@nt.tool
def gamma() -> str:
    """Gamma tool."""
    return "gamma"


@nt.tool(needs_approval=True)
def risky() -> str:
    """A risky tool."""
    return "risky done"


@nt.tool
def loose() -> str:
    """A loose tool."""
    return "loose"


@nt.tool(executor="frontend")
def ask_color() -> str:
    """Ask for a color."""


def group_a(**kw):
    return nt.Plugin(
        "group_a",
        "A things",
        [alpha, beta],
        skills=[nt.Skill("only_alpha", "Just alpha", ["alpha"], instructions="ALPHA SKILL")],
        instructions="A RULES",
        **kw,
    )


def group_b(**kw):
    return nt.Plugin("group_b", "B things", [gamma, risky], instructions="B RULES", **kw)


def make(*steps, **kw):
    script = t.ScriptedTransport(*steps)
    kw.setdefault("tools", [loose])
    kw.setdefault("plugins", [group_a(), group_b()])
    agent = nt.Agent(client=script.client(), model="claude-test", **kw)
    return agent, script


def names(body):
    return [tool["name"] for tool in body.get("tools", [])]


def results_of(body):
    return {b["tool_use_id"]: b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"}


def breakpoints(body):
    n = sum(1 for b in body.get("system", []) if "cache_control" in b)
    n += sum(1 for b in body.get("tools", []) if "cache_control" in b)
    for m in body["messages"]:
        if isinstance(m["content"], list):
            n += sum(1 for b in m["content"] if "cache_control" in b)
    return n


def body_ok(script):
    assert not script.refused, [x.errors for x in script.refused]
    for body in script.requests:
        assert request_errors(body) == []
        assert len(names(body)) == len(set(names(body)))
        assert breakpoints(body) <= 4


def every_call_answered(state):
    msgs = state.messages
    for i, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        ids = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
        if not ids:
            continue
        if i + 1 == len(msgs):
            return False
        got = [b["tool_use_id"] for b in msgs[i + 1]["content"] if b.get("type") == "tool_result"]
        assert sorted(got) == sorted(ids) and len(got) == len(set(got))
    return True
