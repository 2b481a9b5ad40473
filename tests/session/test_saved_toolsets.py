"""Saved sessions and their tool set across restarts and processes: stale names, schema 2 rows, races."""

import json
import sqlite3

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.session._state import SCHEMA_VERSION
from tests.support.toolset_agent import (
    ask_color,
    body_ok,
    gamma,
    group_a,
    group_b,
    loose,
    names,
    results_of,
    run,
)


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
    assert state.toolset == nt.ToolsetState() and state.schema_version == SCHEMA_VERSION
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
