"""Pause in one Python process; resume and finish in another, from the SQLite file alone."""

import json
import subprocess
import sys
import textwrap

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
        timeout=60,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


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
