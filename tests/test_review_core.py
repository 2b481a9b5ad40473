"""A hostile and a clumsy user against the tool-set core (issue 15) and rich results (issue 16).

Every request the scripted API receives must be one the real API accepts (`script.refused` empty),
with unique tool names and at most 4 cache breakpoints; every tool_use gets exactly one tool_result.
"""

import asyncio
import base64
import contextlib
import json
import sqlite3

import numpy as np
import pandas as pd
import pydantic
import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t
from notebook_tools.api._rules import request_errors

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


# ---------------------------------------------------------------------- augmentations, hostile names


@pytest.mark.parametrize(
    "change",
    [
        {"hide": ["group_a"]},  # a container name as a tool
        {"show": ["only_alpha"]},  # a skill as a tool
        {"expand": ["only_alpha"]},  # a skill as a plugin
        {"inject": ["alpha"]},  # a tool as a plugin
        {"collapse": [""]},
        {"remove": ["gröup_ä"]},
        {"hide": ["alpha", "alpha", "x" * 10_000]},
        {"expand": ["group_a"] * 5000 + ["nope"]},
    ],
)
def test_hostile_augmentation_names_are_refused_whole_and_the_model_told(change):
    @nt.tool
    def changer() -> nt.Augmented:
        """Changes."""
        return nt.Augmented("did", **change)

    agent, script = make(t.turn(t.tool_use("changer", id="c")), t.reply("ok"), tools=[loose, changer])
    run(agent.run("go"))
    body_ok(script)
    block = results_of(script.requests[1])["c"]
    assert block["content"].startswith("did\n(Its change to the available tools was refused:")
    assert script.requests[1]["tools"] == script.requests[0]["tools"]
    assert agent.state.toolset == nt.ToolsetState()


def test_duplicates_and_huge_lists_of_known_names_apply_once():
    @nt.tool
    def changer() -> nt.Augmented:
        """Changes."""
        return nt.Augmented("did", expand=["group_a"] * 3000, hide=["beta"] * 3000)

    agent, script = make(t.turn(t.tool_use("changer", id="c")), t.reply("ok"), tools=[loose, changer])
    run(agent.run("go"))
    body_ok(script)
    assert names(script.requests[1]) == ["loose", "changer", "alpha", "only_alpha", "group_b"]


def test_removing_a_plugin_while_its_skill_is_active_ends_the_skill():
    @nt.tool
    def drop_a() -> nt.Augmented:
        """Removes group_a."""
        return nt.Augmented("removed", remove=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("only_alpha", id="s")),
        t.turn(t.tool_use("drop_a", id="d")),
        t.turn(t.tool_use("alpha", {"x": "1"}, id="a")),
        t.reply("ok"),
        tools=[loose, drop_a],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])
    assert "ALPHA SKILL" in json.dumps(script.requests[1]["system"])
    assert not {"alpha", "beta", "group_a", "only_alpha"} & set(names(script.requests[2]))
    assert "ALPHA SKILL" not in json.dumps(script.requests[2].get("system", []))
    assert agent.state.toolset.skills == []
    block = results_of(script.requests[3])["a"]
    assert block["is_error"] and "not part of this session" in block["content"]


def test_hiding_a_tool_inside_an_active_skill_and_hiding_all_of_a_skill():
    @nt.tool
    def hider() -> nt.Augmented:
        """Hides alpha."""
        return nt.Augmented("hid", hide=["alpha"])

    agent, script = make(
        t.turn(t.tool_use("only_alpha", id="s")),
        t.turn(t.tool_use("hider", id="h")),
        t.turn(t.tool_use("alpha", id="a"), t.tool_use("only_alpha", id="s2"), t.tool_use("group_a", id="g")),
        t.reply("ok"),
        tools=[loose, hider],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])
    assert "alpha" not in names(script.requests[2])
    assert "only_alpha" not in names(script.requests[2])  # the active skill offers nothing now
    got = results_of(script.requests[3])
    assert got["a"]["is_error"] and "hidden" in got["a"]["content"]
    assert every_call_answered(agent.state)


# ----------------------------------------------------------------------- frontend group


def test_collapse_frontend_tools_leaves_frontend_tools_of_plugins_in_their_plugins():
    colors = nt.Plugin("colors", "Color prompts", [ask_color])
    agent, script = make(
        t.turn(t.tool_use("frontend_tools", id="f")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm],
        collapse_frontend_tools=True,
        frontend_instructions="FRONTEND RULES",
        plugins=[colors],
    )
    run(agent.run("go"))
    body_ok(script)
    assert names(script.requests[0]) == ["loose", "frontend_tools", "colors"]
    assert names(script.requests[1]) == ["loose", "user_confirm", "colors"]
    assert "FRONTEND RULES" in json.dumps(script.requests[1]["system"])
    assert "FRONTEND RULES" not in json.dumps(script.requests[0].get("system", []))


def test_a_plugin_named_like_the_frontend_group_is_refused():
    with pytest.raises(nt.ToolDefinitionError):
        make(
            frontend_tools=[nt.user_confirm],
            collapse_frontend_tools=True,
            plugins=[nt.Plugin("frontend_tools", "x", [beta])],
        )


# ----------------------------------------------------------------------- approvals


def test_approval_on_a_plugin_tool_denied_then_plugin_collapsed():
    agent, script = make(
        t.turn(t.tool_use("group_b", id="g")),
        t.turn(t.tool_use("risky", id="r")),
        t.reply("ok"),
        t.reply("again"),
    )
    paused = run(agent.run("go"))
    assert paused.stop_reason == "awaiting_approval"
    agent.collapse_plugin("group_b")
    done = run(agent.resume([nt.ApprovalDecision(tool_use_id="r", approved=False)]))
    assert done.stop_reason == "end_turn"
    body_ok(script)
    block = results_of(script.requests[2])["r"]
    assert block["is_error"] and "denied" in block["content"]
    assert "risky" not in names(script.requests[2]) and "group_b" in names(script.requests[2])
    run(agent.run("more"))
    body_ok(script)
    assert every_call_answered(agent.state)


def test_approval_approved_after_plugin_collapsed_still_runs_once():
    agent, script = make(
        t.turn(t.tool_use("group_b", id="g")),
        t.turn(t.tool_use("risky", id="r")),
        t.reply("ok"),
    )
    run(agent.run("go"))
    agent.collapse_plugin("group_b")
    run(agent.resume([nt.ApprovalDecision(tool_use_id="r", approved=True)]))
    body_ok(script)
    assert results_of(script.requests[2])["r"]["content"] == "risky done"


def test_expand_by_hand_during_a_paused_turn_then_resume():
    agent, script = make(
        t.turn(t.tool_use("ask_color", id="q")),
        t.turn(t.tool_use("gamma", id="gm")),
        t.reply("ok"),
        frontend_tools=[ask_color],
    )
    paused = run(agent.run("go"))
    assert paused.stop_reason == "awaiting_frontend_tools"
    agent.expand_plugin("group_b")
    run(agent.resume([{"tool_use_id": "q", "content": "red"}]))
    body_ok(script)
    assert "gamma" in names(script.requests[1])
    assert results_of(script.requests[2])["gm"]["content"] == "gamma"
    assert every_call_answered(agent.state)


def test_expand_plugin_while_busy_is_refused():
    gate = asyncio.Event()

    @nt.tool
    async def slow() -> str:
        """Slow."""
        await gate.wait()
        return "slow"

    agent, script = make(t.turn(t.tool_use("slow", id="s")), t.reply("ok"), tools=[loose, slow])

    async def main():
        task = asyncio.create_task(agent.run("go"))
        await asyncio.sleep(0.2)
        with pytest.raises(nt.AgentBusyError):
            agent.expand_plugin("group_a")
        with pytest.raises(nt.AgentBusyError):
            agent.collapse_plugin("group_a")
        with pytest.raises(nt.AgentBusyError):
            agent.reset_toolset()
        with pytest.raises(nt.AgentBusyError):
            await agent.run("x", expand=["group_a"])
        gate.set()
        return await task

    run(main())
    body_ok(script)


# ----------------------------------------------------------------------- run(expand=...)


def test_run_expand_with_a_string():
    agent, script = make(t.reply("ok"))
    run(agent.run("go", expand="group_a"))
    assert "alpha" in names(script.requests[0]) and "group_a" not in names(script.requests[0])


def test_run_expand_an_available_but_absent_plugin_is_refused_and_nothing_changes():
    agent, script = make(
        t.reply("ok"), available_plugins=[nt.Plugin("extra", "E", [nt.tool(name="e_tool")(lambda: "e")])]
    )
    before = agent.state
    with pytest.raises(nt.ToolDefinitionError, match="not in this session"):
        run(agent.run("go", expand=["extra"]))
    assert agent.state == before and not script.requests


@pytest.mark.parametrize("bad", [["only_alpha"], ["alpha"], [""], ["nope"], ["group_a", "nope"]])
def test_run_expand_with_bad_names(bad):
    agent, script = make(t.reply("ok"))
    with pytest.raises(nt.ToolDefinitionError):
        run(agent.run("go", expand=bad))
    assert not agent.state.messages and agent.state.toolset == nt.ToolsetState() and not script.requests


# ----------------------------------------------------------------------- cancellation


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


# ----------------------------------------------------------------------- sessions over restarts


def _sqlite_agent(path, **kw):
    script = t.ScriptedTransport(*kw.pop("steps", ()))
    kw.setdefault("tools", [loose])
    agent = nt.Agent(client=script.client(), model="claude-test", store=nt.SQLiteStore(path), **kw)
    return agent, script


def test_a_saved_state_naming_things_that_no_longer_exist_loads_and_requests_validly(tmp_path):
    path = tmp_path / "s.sqlite"
    agent, _ = _sqlite_agent(path, plugins=[group_a(), group_b()], steps=[t.reply("x")])
    run(agent.run("hi"))
    state = agent.state.model_copy(
        update={
            "toolset": nt.ToolsetState(
                plugins={"ghost": True, "group_a": False},
                expanded={"ghost": True, "group_b": True, "frontend_tools": True},
                skills=["ghost_skill", "only_alpha"],
                tools={"ghost_tool": False, "loose": True},
                context=[nt.ContextItem(key="k", value="v")],
            )
        }
    )
    agent.store.save(state)
    again, script = _sqlite_agent(path, plugins=[group_b()], steps=[t.reply("y")])
    again.load(agent.agent_uuid)
    assert [p["name"] for p in again.plugins] == ["group_b"]
    run(again.run("next"))
    body_ok(script)
    assert names(script.requests[0]) == ["loose", "gamma", "risky"]
    # changes by hand still work on such a state
    again.collapse_plugin("group_b")
    again.reset_toolset()


def test_a_paused_call_of_a_tool_that_no_longer_exists_can_be_cancelled(tmp_path):
    path = tmp_path / "s.sqlite"
    colors = nt.Plugin("colors", "c", [ask_color], start_collapsed=False)
    agent, _ = _sqlite_agent(path, plugins=[colors], steps=[t.turn(t.tool_use("ask_color", id="q"))])
    assert run(agent.run("hi")).stop_reason == "awaiting_frontend_tools"
    again, script = _sqlite_agent(path, steps=[t.reply("y")])
    again.load(agent.agent_uuid)
    again.cancel_pending()
    run(again.run("next"))
    body_ok(script)


def test_a_schema_2_row_migrates_to_the_default_toolset(tmp_path):
    path = tmp_path / "s.sqlite"
    agent, _ = _sqlite_agent(path, plugins=[group_a()], steps=[t.reply("x")])
    run(agent.run("hi"))
    data = json.loads(agent.state.model_dump_json())
    del data["toolset"]
    data["schema_version"] = 2
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "UPDATE sessions SET state = ? WHERE agent_uuid = ?", (json.dumps(data), agent.agent_uuid)
        )
    conn.close()
    again, script = _sqlite_agent(path, plugins=[group_a()], steps=[t.reply("y")])
    state = again.load(agent.agent_uuid)
    assert state.toolset == nt.ToolsetState() and state.schema_version == 3
    run(again.run("next"))
    body_ok(script)


def test_a_saved_state_carries_no_augmentation_key(tmp_path):
    # held results are saved as before plugins existed (schema 2 had no augmentation)
    path = tmp_path / "s.sqlite"
    agent, _ = _sqlite_agent(
        path,
        frontend_tools=[nt.user_confirm],
        steps=[t.turn(t.tool_use("loose", id="l"), t.tool_use("user_confirm", {"message": "ok?"}, id="u"))],
    )
    run(agent.run("hi"))
    data = json.loads(agent.state.model_dump_json())
    assert "augmentation" not in json.dumps(data)


def test_a_backend_result_injecting_a_plugin_object_survives_restart_without_crash(tmp_path):
    path = tmp_path / "s.sqlite"

    @nt.tool
    def unlock() -> nt.Augmented:
        """Unlock."""
        return nt.Augmented("ok", inject=[nt.Plugin("secret", "S", [gamma], start_collapsed=False)])

    agent, _ = _sqlite_agent(
        path,
        tools=[unlock],
        steps=[t.turn(t.tool_use("unlock", id="u")), t.turn(t.tool_use("gamma", id="g")), t.reply("x")],
    )
    run(agent.run("hi"))
    again, script = _sqlite_agent(
        path, tools=[unlock], steps=[t.turn(t.tool_use("gamma", id="g2")), t.reply("y")]
    )
    again.load(agent.agent_uuid)
    run(again.run("next"))
    body_ok(script)
    assert results_of(script.requests[1])["g2"]["is_error"]


# ----------------------------------------------------------------------- request invariants


def test_many_plugins_and_changes_never_exceed_four_breakpoints_and_names_stay_unique():
    plugins = [
        nt.Plugin(
            f"p{i}",
            f"P {i}",
            [nt.tool(name=f"t{i}_{j}")(lambda: "x") for j in range(3)],
            instructions=f"I{i}",
            skills=[nt.Skill(f"s{i}", "s", [f"t{i}_0"], instructions="S")],
        )
        for i in range(10)
    ]
    steps = [t.turn(*[t.tool_use(f"p{i}", id=f"e{i}"), t.tool_use(f"s{i}", id=f"k{i}")]) for i in range(10)]
    agent, script = make(*steps, t.reply("ok"), plugins=plugins, system="SYS")
    run(agent.run("go"))
    body_ok(script)
    assert len(script.requests) == 11


def test_truncated_reply_calling_a_container_gets_an_error_and_changes_nothing():
    agent, script = make(
        t.turn(t.tool_use("group_a", id="g"), stop_reason="max_tokens"), t.reply("ok"), t.reply("ok2")
    )
    run(agent.run("go"))
    assert agent.state.toolset == nt.ToolsetState()
    run(agent.run("again"))
    assert script.requests[2]["tools"] == script.requests[0]["tools"]
    body_ok(script)
    block = results_of(script.requests[1])["g"]
    assert block["is_error"] and "max_tokens" in block["content"]


# ----------------------------------------------------------------------- rich results


@pytest.mark.parametrize("value", [{"x": float("nan")}, {"x": float("inf")}, {"x": b"bytes"}, {"x": {1, 2}}])
def test_non_json_rich_data_is_refused(value):
    with pytest.raises(pydantic.ValidationError, match="JSON"):
        r.RichResult(kind="json", data=value)


def test_huge_ints_and_unicode_in_rich_data_reach_the_model():
    rich = r.RichResult(kind="my.kind", data={"n": 10**400, "s": "ünï 🚀"}, summary="sum")
    text = r.model_content(rich, 100_000)
    assert text.startswith("[my.kind] sum\n") and "1" + "0" * 400 in text and "ünï 🚀" in text


def test_deep_nesting():
    data = []
    cur = data
    for _ in range(5000):
        nxt = []
        cur.append(nxt)
        cur = nxt
    try:
        rich = r.RichResult(kind="json", data=data)
    except (pydantic.ValidationError, RecursionError):
        return  # refused: fine
    assert isinstance(r.model_content(rich, 100), str)


def test_a_backend_tool_returning_deeply_nested_rich_is_an_error_result():
    @nt.tool
    def deep() -> r.RichResult:
        """Deep."""
        data = []
        cur = data
        for _ in range(5000):
            nxt = []
            cur.append(nxt)
            cur = nxt
        return r.RichResult(kind="json", data=data)

    agent, script = make(t.turn(t.tool_use("deep", id="d")), t.reply("ok"), tools=[deep])
    run(agent.run("go"))
    body_ok(script)
    assert every_call_answered(agent.state)


def frames():
    idx = pd.MultiIndex.from_tuples([("a", "x"), ("a", "y"), ("b", "x")])
    yield "multiindex", pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=idx)
    yield "dupcols", pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    yield (
        "mixed",
        pd.DataFrame({"i": [1, None], "s": ["x", None], "f": [1.5, float("nan")], "b": [True, False]}),
    )
    yield "tz", pd.DataFrame({"t": pd.date_range("2024-01-01", periods=3, tz="Europe/Paris")})
    yield "cat", pd.DataFrame({"c": pd.Categorical(["a", "b", "a"])})
    yield "empty", pd.DataFrame()
    yield "zerocols", pd.DataFrame(index=range(5))
    yield "zerorows", pd.DataFrame(columns=["a", "b"])
    yield "objects", pd.DataFrame({"o": [{"k": 1}, [1, 2], None, b"\x00\xff" * 300, 10**30, float("inf")]})
    yield "huge_ints", pd.DataFrame({"o": [2**70, -(2**70)]})
    yield "int_colnames", pd.DataFrame({0: [1], 1.5: [2], None: [3]})
    yield "nested_index", pd.DataFrame({"a": [1, 2]}, index=pd.MultiIndex.from_tuples([(1, "x"), (2, "y")]))
    yield "timedelta", pd.DataFrame({"d": pd.to_timedelta([1, 2], unit="s")})
    yield "period", pd.DataFrame({"p": pd.period_range("2024-01", periods=2, freq="M")})
    yield "interval", pd.DataFrame({"i": pd.interval_range(0, 2)})
    yield "complex", pd.DataFrame({"c": [1 + 2j, 3j]})
    yield "nat", pd.DataFrame({"t": [pd.NaT, pd.Timestamp("2024-01-01")]})
    yield (
        "nullable",
        pd.DataFrame({"i": pd.array([1, None], dtype="Int64"), "s": pd.array(["a", None], dtype="string")}),
    )
    yield "sparse", pd.DataFrame({"s": pd.arrays.SparseArray([0, 0, 1])})
    yield "wide", pd.DataFrame(np.zeros((3, 10_000)))
    yield "series", pd.Series([1, 2, 3], name="s")
    yield "series_noname", pd.Series([1, 2, 3])
    yield "dt_index", pd.DataFrame({"a": [1, 2]}, index=pd.date_range("2024", periods=2, tz="UTC"))
    yield "long_colname", pd.DataFrame({"x" * 100_000: [1]})


@pytest.mark.parametrize("name,frame", list(frames()), ids=[n for n, _ in frames()])
def test_frames_convert_and_reach_the_model_validly(name, frame):
    rich = r.convert(frame)
    assert rich is not None and rich.kind == "table"
    json.dumps(rich.model_dump(mode="json"), allow_nan=False)
    content = r.model_content(rich, 100_000)
    assert isinstance(content, str) and len(content) <= 100_000 + 100

    @nt.tool
    def give() -> object:
        """Gives a frame."""
        return frame

    agent, script = make(t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give])
    run(agent.run("go"))
    body_ok(script)
    block = results_of(script.requests[1])["g"]
    assert not block.get("is_error"), block
    assert "g" in agent.results


def test_wide_frame_model_text_within_budget():
    rich = r.convert(pd.DataFrame(np.zeros((3, 10_000))))
    assert len(rich.data["model_text"]) <= 4000
    assert len(rich.data["columns"]) <= 200


@pytest.mark.parametrize("max_chars", [0, 1, 2, 50])
def test_model_content_budget_edges(max_chars):
    for rich in [
        r.text("hello world " * 50),
        r.diff("a", "x\n", "y\n"),
        r.convert(pd.DataFrame({"a": range(100)})),
    ]:
        out = r.model_content(rich, max_chars)
        assert isinstance(out, str) and out


@pytest.mark.parametrize("max_chars", [0, 1, 50])
def test_agent_with_tiny_budget_sends_valid_requests(max_chars):
    @nt.tool
    def give() -> object:
        """Gives a frame."""
        return pd.DataFrame({"a": range(100)})

    agent, script = make(
        t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give], max_result_chars=max_chars
    )
    run(agent.run("go"))
    body_ok(script)


def test_converter_raising_or_returning_wrong_type_is_an_error_result():
    def boom(value):
        raise RuntimeError("boom")

    def wrong(value):
        return "a string"

    class W1:
        pass

    class W2:
        pass

    r.register_converter(W1, boom)
    r.register_converter(W2, wrong)
    try:

        @nt.tool
        def give1() -> object:
            """W1."""
            return W1()

        @nt.tool
        def give2() -> object:
            """W2."""
            return W2()

        agent, script = make(
            t.turn(t.tool_use("give1", id="a"), t.tool_use("give2", id="b")),
            t.reply("ok"),
            tools=[give1, give2],
        )
        run(agent.run("go"))
        body_ok(script)
        got = results_of(script.requests[1])
        assert got["a"]["is_error"] and "boom" in got["a"]["content"]
        assert got["b"]["is_error"] and "RichResult" in got["b"]["content"]
    finally:
        r.unregister_converter(W1)
        r.unregister_converter(W2)


@pytest.mark.parametrize(
    "data,mime",
    [
        (b"not a png", "image/png"),
        (PNG, "image/jpeg"),
        (b"", "image/png"),
        (b"%PDF-1.4 tiny", "application/pdf"),
        (b"garbage", "application/pdf"),
        (b"\x00" * (6 * 1024 * 1024), "image/png"),
        (b"x" * 100, "application/zip"),
        (PNG, "image/webp"),
        (b"", "application/pdf"),
    ],
)
def test_binary_with_wrong_mime_or_giant_data_never_breaks_the_request(data, mime):
    @nt.tool
    def give() -> r.RichResult:
        """Bin."""
        return r.binary(data, mime, filename="f")

    agent, script = make(t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give])
    run(agent.run("go"))
    body_ok(script)
    assert every_call_answered(agent.state)


def test_binary_mime_uppercase_refused():
    with pytest.raises(pydantic.ValidationError):
        r.binary(PNG, "image/PNG")


def test_frontend_rich_answer_for_a_tool_with_output_schema():
    agent, script = make(
        t.turn(t.tool_use("user_confirm", {"message": "ok?"}, id="u")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm],
    )
    run(agent.run("go"))
    with pytest.raises(nt.InvalidToolResultError):
        run(agent.resume([{"tool_use_id": "u", "content": r.text("maybe")}]))
    run(agent.resume([{"tool_use_id": "u", "content": r.text("yes")}]))
    body_ok(script)
    assert results_of(script.requests[1])["u"]["content"] == "yes"


def test_augmented_wrapping_a_dataframe_keeps_both():
    @nt.tool
    def give() -> nt.Augmented:
        """Frame and expand."""
        return nt.Augmented(pd.DataFrame({"a": [1, 2]}), expand=["group_a"])

    agent, script = make(t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give])
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])
    assert results_of(script.requests[1])["g"]["content"].startswith("DataFrame: 2 rows x 1 columns")
    assert isinstance(agent.results["g"].value, pd.DataFrame)


def test_kept_results_limit():
    kept = r.KeptResults(limit=2)
    for i in range(5):
        kept.keep(r.KeptResult(str(i), "n", i, None))
    assert list(kept) == ["3", "4"]


def test_page_of_out_of_range_and_negative():
    frame = pd.DataFrame({"a": range(10)})
    assert r.page_of(frame, 10**9)["start"] == 9
    assert r.page_of(frame, -5)["start"] == 0
    assert r.page_of(pd.DataFrame(), 3)["rows"] == []
    r.page_of(frame, 0, 0)
    r.page_of(frame, 0, 10**9)


# ----------------------------------------------------------------------- round 2


def test_a_browser_answer_with_a_badly_typed_augmentation_is_refused_cleanly():
    agent, script = make(t.turn(t.tool_use("ask_color", id="q")), t.reply("ok"), frontend_tools=[ask_color])
    run(agent.run("go"))
    before = agent.state
    for bad in (
        {"expand": "group_a"},
        {"expand": [1]},
        {"nope": []},
        {"context": [{"key": "", "value": "v"}]},
        "x",
        5,
    ):
        with pytest.raises(nt.InvalidToolResultError):
            run(agent.resume([{"tool_use_id": "q", "content": "red", "augmentation": bad}]))
        assert agent.state == before
    run(
        agent.resume(
            [
                {
                    "tool_use_id": "q",
                    "content": "red",
                    "augmentation": {"expand": ["group_a"], "hide": ["beta"]},
                }
            ]
        )
    )
    body_ok(script)
    assert "alpha" in names(script.requests[1]) and "beta" not in names(script.requests[1])


def test_cancel_pending_with_a_container_result_held_and_an_approval_open():
    agent, script = make(
        t.turn(t.tool_use("group_a", id="g"), t.tool_use("risky", id="r")),
        t.reply("ok"),
        plugins=[group_a(), group_b(start_collapsed=False)],
    )
    assert run(agent.run("go")).stop_reason == "awaiting_approval"
    closed = agent.cancel_pending()
    assert [c.tool_use_id for c in closed] == ["r"]
    assert every_call_answered(agent.state)
    assert agent.state.toolset.expanded == {"group_a": True}
    run(agent.run("next"))
    body_ok(script)


def test_reset_while_an_approval_is_pending_then_approved():
    agent, script = make(
        t.turn(t.tool_use("group_b", id="g")),
        t.turn(t.tool_use("risky", id="r")),
        t.reply("ok"),
    )
    run(agent.run("go"))
    agent.reset_toolset()
    run(agent.resume([nt.ApprovalDecision(tool_use_id="r", approved=True)]))
    body_ok(script)
    assert results_of(script.requests[2])["r"]["content"] == "risky done"
    assert "risky" not in names(script.requests[2])


def test_frontend_tool_of_a_plugin_answered_after_the_plugin_was_removed():
    colors = nt.Plugin("colors", "c", [ask_color], start_collapsed=False)

    @nt.tool
    def drop() -> nt.Augmented:
        """Drop colors."""
        return nt.Augmented("dropped", remove=["colors"])

    agent, script = make(
        t.turn(t.tool_use("ask_color", id="q"), t.tool_use("drop", id="d")),
        t.reply("ok"),
        tools=[loose, drop],
        plugins=[colors],
    )
    assert run(agent.run("go")).stop_reason == "awaiting_frontend_tools"
    run(agent.resume([{"tool_use_id": "q", "content": "blue"}]))
    body_ok(script)
    assert "ask_color" not in names(script.requests[1])
    assert results_of(script.requests[1])["q"]["content"] == "blue"


def test_augmented_none_value_and_empty_augmentation():
    @nt.tool
    def nothing() -> nt.Augmented:
        """Nothing."""
        return nt.Augmented(None)

    @nt.tool
    def empty_str() -> nt.Augmented:
        """Empty."""
        return nt.Augmented("", expand=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("nothing", id="n"), t.tool_use("empty_str", id="e")),
        t.reply("ok"),
        tools=[nothing, empty_str],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])


def test_same_tool_object_in_two_plugins_is_refused():
    with pytest.raises(nt.ToolDefinitionError):
        make(plugins=[nt.Plugin("p1", "", [alpha]), nt.Plugin("p2", "", [alpha])])


def test_the_same_plugin_in_plugins_and_available_is_fine():
    a = group_a()
    agent, script = make(t.reply("ok"), plugins=[a], available_plugins=[a])
    run(agent.run("go"))
    assert "group_a" in names(script.requests[0])


def test_sync_tool_cancelled_in_thread_with_augmented():
    import threading

    release = threading.Event()

    @nt.tool
    def blocking() -> nt.Augmented:
        """Blocks."""
        release.wait(5)
        return nt.Augmented("late", expand=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("blocking", id="b")), t.reply("x"), t.reply("y"), tools=[loose, blocking]
    )

    async def main():
        task = asyncio.create_task(agent.run("go"))
        await asyncio.sleep(0.3)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        release.set()
        await asyncio.sleep(0.1)

    run(main())
    assert every_call_answered(agent.state)
    assert agent.state.toolset == nt.ToolsetState()  # the late change never applied
    run(agent.run("again"))
    body_ok(script)


# ----------------------------------------------------------------------- round 3


def test_two_processes_one_expands_by_hand_while_the_other_is_paused(tmp_path):
    path = tmp_path / "s.sqlite"
    a, script_a = _sqlite_agent(
        path,
        plugins=[group_a(), group_b()],
        frontend_tools=[ask_color],
        steps=[t.turn(t.tool_use("ask_color", id="q")), t.turn(t.tool_use("alpha", id="al")), t.reply("ok")],
    )
    assert run(a.run("go")).stop_reason == "awaiting_frontend_tools"
    b, _ = _sqlite_agent(path, plugins=[group_a(), group_b()], frontend_tools=[ask_color])
    b.load(a.agent_uuid)
    b.expand_plugin("group_a")
    with pytest.raises(nt.StaleSessionError):
        run(a.resume([{"tool_use_id": "q", "content": "red"}]))
    a.load(a.agent_uuid)
    run(a.resume([{"tool_use_id": "q", "content": "red"}]))
    body_ok(script_a)
    assert "alpha" in names(script_a.requests[1])
    assert results_of(script_a.requests[2])["al"]["content"] == "alpha "


def test_a_manual_run_of_a_plugin_tool_can_augment():
    @nt.tool(mode="both")
    def opener() -> nt.Augmented:
        """Opens group_b."""
        return nt.Augmented("opened", expand=["group_b"])

    p = nt.Plugin("tools_p", "T", [opener])
    agent, script = make(t.reply("ok"), plugins=[group_a(), group_b(), p])
    result = run(agent.run_manual("opener", {}))
    assert result.content == "opened" and result.augmentation is None
    run(agent.run("go"))
    body_ok(script)
    assert "gamma" in names(script.requests[0])
    assert script.requests[0]["messages"][-1]["content"][0]["text"].startswith(
        "[The user ran the tool `opener`"
    )


def test_order_of_tools_does_not_depend_on_the_order_of_changes():
    a1, _ = make()
    s = a1.toolset.apply(nt.ToolsetState(), nt.Augmentation(expand=["group_b"]))
    s = a1.toolset.apply(s, nt.Augmentation(expand=["group_a"], hide=["loose"]))
    s2 = a1.toolset.apply(nt.ToolsetState(), nt.Augmentation(hide=["loose"], expand=["group_a"]))
    s2 = a1.toolset.apply(s2, nt.Augmentation(expand=["group_b"]))
    assert s == s2
    assert a1.toolset.definitions(s) == a1.toolset.definitions(s2)


def test_augmented_with_both_change_and_keywords_is_a_tool_error():
    @nt.tool
    def both() -> nt.Augmented:
        """Both."""
        return nt.Augmented("x", nt.Augmentation(expand=["group_a"]), hide=["loose"])

    agent, script = make(t.turn(t.tool_use("both", id="b")), t.reply("ok"), tools=[loose, both])
    run(agent.run("go"))
    body_ok(script)
    assert results_of(script.requests[1])["b"]["is_error"]


def test_a_container_call_with_unexpected_input_still_expands():
    agent, script = make(t.turn(t.tool_use("group_a", {"junk": [1, 2]}, id="g")), t.reply("ok"))
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])


def test_the_same_container_called_twice_in_one_reply():
    agent, script = make(
        t.turn(
            t.tool_use("group_a", id="g1"),
            t.tool_use("group_a", id="g2"),
            t.tool_use("only_alpha", id="s1"),
            t.tool_use("only_alpha", id="s2"),
        ),
        t.reply("ok"),
    )
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    run(agent.run("go"))
    body_ok(script)
    got = results_of(script.requests[1])
    assert got["g1"]["content"].startswith("group_a expanded.")
    assert got["g2"]["content"].startswith("group_a is already expanded.")
    assert got["s2"]["content"].startswith("only_alpha skill is already active.")
    assert [(e.change, e.names) for e in recorder.of_type("toolset_changed")] == [
        ("expanded", ["group_a"]),
        ("skill_activated", ["only_alpha"]),
    ]


def test_unicode_context_goes_into_the_system_prompt():
    @nt.tool
    def changer() -> nt.Augmented:
        """Changes."""
        return nt.Augmented("did", context=[("usér", "ünïcødé 🚀")])

    agent, script = make(t.turn(t.tool_use("changer", id="c")), t.reply("ok"), tools=[loose, changer])
    run(agent.run("go"))
    body_ok(script)
    assert script.requests[1]["system"][-1]["text"] == "Context:\n- usér: ünïcødé 🚀"


def test_plugin_constructor_hostile_arguments_raise_definition_errors():
    for kwargs in (
        {"tools": "alpha"},
        {"tools": [alpha, alpha]},
        {"description": 5},
        {"start_collapsed": "no"},
        {"expansion_message": b"x"},
        {"skills": [nt.Skill("alpha", "same name as a tool", ["alpha"])]},
        {"skills": ["not a skill"]},
    ):
        with pytest.raises(nt.ToolDefinitionError):
            nt.Plugin("p", **{"tools": [alpha], **kwargs})
    for args in (("s", "d", "alpha"), ("s", "d", []), ("bad name", "d", ["a"]), ("s", "d", [1])):
        with pytest.raises(nt.ToolDefinitionError):
            nt.Skill(*args)


def test_a_persons_image_answer_reaches_the_model_as_an_image_block():
    agent, script = make(t.turn(t.tool_use("ask_color", id="u")), t.reply("ok"), frontend_tools=[ask_color])
    run(agent.run("go"))
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    run(agent.resume([{"tool_use_id": "u", "content": r.binary(PNG, "image/png")}]))
    body_ok(script)
    content = results_of(script.requests[1])["u"]["content"]
    assert [b["type"] for b in content] == ["text", "image"]
    assert [e.shown.kind for e in recorder.of_type("tool_completed")] == ["binary"]


def test_a_frontend_tool_with_a_text_schema_refuses_an_image_answer():
    agent, script = make(
        t.turn(t.tool_use("ask_text", {"prompt": "?"}, id="u")), t.reply("ok"), frontend_tools=[nt.ask_text]
    )
    run(agent.run("go"))
    before = agent.state
    with pytest.raises(nt.InvalidToolResultError, match="is not of type 'string'"):
        run(agent.resume([{"tool_use_id": "u", "content": r.binary(PNG, "image/png")}]))
    assert agent.state == before and len(script.requests) == 1


def test_partial_answers_with_augmentations_accumulate_then_continue():
    agent, script = make(
        t.turn(t.tool_use("ask_color", id="q1"), t.tool_use("ask_color", id="q2")),
        t.reply("ok"),
        frontend_tools=[ask_color],
    )
    run(agent.run("go"))
    run(agent.accept([{"tool_use_id": "q1", "content": "red", "augmentation": {"expand": ["group_a"]}}]))
    assert agent.state.toolset.expanded == {"group_a": True}
    run(agent.accept([{"tool_use_id": "q2", "content": "blue", "augmentation": {"hide": ["alpha"]}}]))
    run(agent.continue_turn())
    body_ok(script)
    assert "alpha" not in names(script.requests[1]) and "beta" in names(script.requests[1])
    assert every_call_answered(agent.state)


def test_show_offers_a_tool_hidden_by_definition_for_the_first_time():
    @nt.tool
    def reveal() -> nt.Augmented:
        """Reveal."""
        return nt.Augmented("shown", show=["gamma"])

    agent, script = make(
        t.turn(t.tool_use("reveal", id="v")),
        t.reply("ok"),
        tools=[loose, reveal],
        plugins=[group_b(start_collapsed=False)],
        hidden_tools=["gamma"],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "gamma" not in names(script.requests[0]) and "gamma" in names(script.requests[1])
    assert agent.state.toolset.tools == {"gamma": True}
