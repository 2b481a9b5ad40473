"""Pause in one Python process; resume and finish in another, from the SQLite file alone."""

import json
import subprocess
import sys
import textwrap

from tests.support.readiness import CEILING

COMMON = """
import asyncio, json, sys
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool
def count_rows(table: str) -> int:
    '''Count the rows of a table.

    Args:
        table: The table name.
    '''
    return {"sales": 120}[table]

store = nt.SQLiteStore(sys.argv[1])
"""

FIRST = (
    COMMON
    + """
script = t.ScriptedTransport(t.turn(
    "Counting, and asking you two things.",
    t.tool_use("count_rows", {"table": "sales"}, id="toolu_backend"),
    t.tool_use("user_confirm", {"message": "Drop 12 duplicate rows?"}, id="toolu_confirm"),
    t.tool_use("select_option", {"prompt": "Target column?", "options": ["price", "qty"]}, id="toolu_select"),
))
agent = nt.Agent(client=script.client(), model="claude-test", tools=[count_rows],
                 frontend_tools=[nt.user_confirm, nt.select_option], store=store)
result = asyncio.run(agent.run("Clean the sales table"))
print(json.dumps({"uuid": result.agent_uuid, "stop": result.stop_reason,
                  "pending": [p.tool_use_id for p in result.pending_frontend_tools]}))
"""
)

SECOND = (
    COMMON
    + """
script = t.ScriptedTransport(t.reply("Dropped 12 rows; target is price."))
agent = nt.Agent(client=script.client(), model="claude-test", tools=[count_rows],
                 frontend_tools=[nt.user_confirm, nt.select_option], store=store)
result = asyncio.run(agent.resume([
    nt.ToolResult(tool_use_id="toolu_confirm", content="yes"),
    nt.ToolResult(tool_use_id="toolu_select", content="price"),
], agent_uuid=sys.argv[2]))
print(json.dumps({"stop": result.stop_reason, "text": result.text, "requests": script.requests}))
"""
)


def _python(code, *args):
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=CEILING,  # (60 s was not enough beside two other full runs)
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _race(code, db, agent_uuid, tmp_path):
    """Run `code` in two processes ("a" and "b") that wait for each other; their JSON outcomes."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(code), db, agent_uuid, name, str(barrier)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    outcomes = []
    for racer in racers:
        out, err = racer.communicate(timeout=CEILING)
        assert racer.returncode == 0, err
        outcomes.append(json.loads(out.strip().splitlines()[-1]))
    return outcomes


def test_pause_in_one_process_resume_in_another(tmp_path):
    db = str(tmp_path / "sessions.sqlite")
    first = _python(FIRST, db)
    assert first["stop"] == "awaiting_frontend_tools"
    assert first["pending"] == ["toolu_confirm", "toolu_select"]

    second = _python(SECOND, db, first["uuid"])
    assert second["stop"] == "end_turn"
    assert second["text"] == "Dropped 12 rows; target is price."
    [request] = second["requests"]
    messages = request["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    tool_use_ids = [b["id"] for b in messages[1]["content"] if b["type"] == "tool_use"]
    assert tool_use_ids == ["toolu_backend", "toolu_confirm", "toolu_select"]
    # every tool_use, backend and frontend, is answered in ONE user message, in order
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_backend", "content": "120"},
        {"type": "tool_result", "tool_use_id": "toolu_confirm", "content": "yes"},
        {"type": "tool_result", "tool_use_id": "toolu_select", "content": "price"},
    ]


RACER = """
import json, os, pathlib, sys, time
import notebook_tools as nt

db, agent_uuid, name, barrier = sys.argv[1:5]
store = nt.SQLiteStore(db)
state = store.load(agent_uuid)
state.messages.append({"role": "assistant", "content": f"answered by {name}"})
pathlib.Path(barrier, name).touch()
deadline = time.monotonic() + 30
while len(os.listdir(barrier)) < 2:  # both have loaded before either saves
    if time.monotonic() > deadline:
        raise SystemExit("the other process never arrived")
    time.sleep(0.0005)
try:
    store.save(state)
    print(json.dumps({"name": name, "saved": True, "revision": state.revision}))
except nt.StaleSessionError as exc:
    print(json.dumps({"name": name, "saved": False, "revision": state.revision, "error": str(exc),
                      "stored": exc.stored}))
"""


def test_two_processes_save_the_same_pause_and_exactly_one_wins(tmp_path):
    import notebook_tools as nt

    db = str(tmp_path / "sessions.sqlite")
    store = nt.SQLiteStore(db)
    paused = nt.AgentState(messages=[{"role": "user", "content": "Clean the sales table"}])
    store.save(paused)
    store.save(paused)  # revision 2: the race starts from a session saved before
    outcomes = _race(RACER, db, paused.agent_uuid, tmp_path)

    [winner] = [o for o in outcomes if o["saved"]]
    [loser] = [o for o in outcomes if not o["saved"]]
    assert winner["revision"] == 3
    assert loser["revision"] == 2 and loser["stored"] == 3
    assert paused.agent_uuid in loser["error"] and db in loser["error"]
    stored = store.load(paused.agent_uuid)
    assert stored.revision == 3
    assert stored.messages[-1] == {"role": "assistant", "content": f"answered by {winner['name']}"}
    assert len(stored.messages) == 2


RESUMER = (
    COMMON
    + """
import os, pathlib, time
db, agent_uuid, name, barrier = sys.argv[1:5]
script = t.ScriptedTransport(t.reply(f"Finished by {name}."))
agent = nt.Agent(client=script.client(), model="claude-test", tools=[count_rows],
                 frontend_tools=[nt.user_confirm, nt.select_option], store=store)
agent.load(agent_uuid)
pathlib.Path(barrier, name).touch()
deadline = time.monotonic() + 30
while len(os.listdir(barrier)) < 2:  # both hold the same pause before either answers it
    if time.monotonic() > deadline:
        raise SystemExit("the other process never arrived")
    time.sleep(0.0005)
answers = [nt.ToolResult(tool_use_id="toolu_confirm", content="yes" if name == "a" else "no"),
           nt.ToolResult(tool_use_id="toolu_select", content="price" if name == "a" else "qty")]
try:
    result = asyncio.run(agent.resume(answers))
    print(json.dumps({"name": name, "won": True, "text": result.text, "sent": len(script.requests)}))
except nt.StaleSessionError as exc:
    print(json.dumps({"name": name, "won": False, "error": str(exc), "sent": len(script.requests),
                      "status": agent.state.status}))
"""
)


def test_two_processes_resume_one_pause_and_exactly_one_wins(tmp_path):
    import notebook_tools as nt

    db = str(tmp_path / "sessions.sqlite")
    first = _python(FIRST, db)
    assert first["stop"] == "awaiting_frontend_tools"
    outcomes = _race(RESUMER, db, first["uuid"], tmp_path)

    [winner] = [o for o in outcomes if o["won"]]
    [loser] = [o for o in outcomes if not o["won"]]
    assert winner["text"] == f"Finished by {winner['name']}." and winner["sent"] == 1
    # The loser was refused before anything ran or was sent, and still holds the pause it loaded.
    assert loser["sent"] == 0 and loser["status"] == "awaiting_frontend_tools"
    assert first["uuid"] in loser["error"] and "agent.load" in loser["error"]
    stored = nt.SQLiteStore(db).load(first["uuid"])
    assert stored.status == "idle"
    results = {b["tool_use_id"]: b["content"] for b in stored.messages[2]["content"]}
    mine = {"a": ("yes", "price"), "b": ("no", "qty")}[winner["name"]]
    assert (results["toolu_confirm"], results["toolu_select"]) == mine
    assert stored.messages[-1]["content"][0]["text"] == f"Finished by {winner['name']}."


PLUGINS = """
import asyncio, json, sys
import notebook_tools as nt
from notebook_tools import testing as t
from tests.tools.test_plugins import cleaning, database, log_in, plotting, whoami

def build(*steps):
    script = t.ScriptedTransport(*steps)
    agent = nt.Agent(client=script.client(), model="claude-test", tools=[whoami, log_in],
                     plugins=[cleaning(), plotting()], available_plugins=[database()],
                     store=nt.SQLiteStore(sys.argv[1]), system="S")
    return agent, script
"""

PLUGINS_FIRST = (
    PLUGINS
    + """
agent, script = build(
    t.turn(t.tool_use("plotting", id="p"), t.tool_use("log_in", {"role": "analyst"}, id="l")),
    t.reply("done"),
)
asyncio.run(agent.run("go"))
print(json.dumps({"uuid": agent.agent_uuid, "tools": script.requests[-1]["tools"],
                  "system": script.requests[-1]["system"]}))
"""
)

PLUGINS_SECOND = (
    PLUGINS
    + """
agent, script = build(t.reply("again"))
agent.load(sys.argv[2])
asyncio.run(agent.run("next"))
print(json.dumps({"tools": script.requests[-1]["tools"], "system": script.requests[-1]["system"]}))
"""
)


def test_a_tool_set_changed_in_one_process_is_the_next_requests_in_another(tmp_path):
    path = str(tmp_path / "sessions.sqlite")
    first = _python(PLUGINS_FIRST, path)
    second = _python(PLUGINS_SECOND, path, first["uuid"])
    names = [tool["name"] for tool in second["tools"]]
    # expanded (plotting), injected and expanded (database), collapsed (cleaning), hidden (whoami), context
    assert names == ["log_in", "cleaning", "quick_clean", "histogram", "scatter", "query", "drop_table"]
    assert second["tools"] == first["tools"] and second["system"] == first["system"]
    assert "- user: a analyst is logged in" in second["system"][-1]["text"]
