"""The CLI's session id kept in the toolkit's store: a ClaudeCode made later (a new kernel) resumes it.

Each kernel is a `ClaudeCode` of its own on a store of its own (SQLite, the same file), each run on
its own event loop; the second is told only the store and the session's name. The real CLI resumes
its conversation: the stand-in sees the first turn's messages in the second turn's request.
"""

import asyncio

import pytest

pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.claude_code_standin import Person, bounded, calls, standin


def _texts(body):
    out = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [b.get("text", "") for b in blocks if b.get("type") == "text"]
    return " | ".join(out)


def test_a_new_kernel_resumes_the_conversation_and_what_was_remembered(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    db = tmp_path / "sessions.db"
    write = t.tool_use("Write", {"file_path": str(project / "a.txt"), "content": "a\n"})

    async def first_kernel(server):
        claude = nt.ClaudeCode(
            cwd=project, options=server.options(), store=nt.SQLiteStore(db), session="analysis"
        )
        person = Person(claude.broker)
        turn = asyncio.ensure_future(claude.send("Remember the word PELICAN, then write a.txt"))
        card = await person.next_card()
        person.decide(card, approved=True, remember="arguments")
        await bounded(turn)
        await claude.close()
        return claude.session_id, claude.shown.usage

    async def second_kernel(server):
        claude = nt.ClaudeCode(
            cwd=project, options=server.options(), store=nt.SQLiteStore(db), session="analysis"
        )
        taken_up = claude.session_id, len(claude.remembered), claude.shown.usage.cost_usd
        chat = nt.Chat(claude)  # the new kernel's chat shows the turn before the restart
        before = [
            (i["kind"], i.get("text") or i.get("name"), i.get("status"))
            for i in chat.transcript.items.values()
        ]
        cost_shown = chat.view.usage["cost_usd"]
        await bounded(claude.send("Which word?"))
        await claude.close()
        after = [i.get("text") for i in chat.transcript.items.values() if i["kind"] == "user"]
        return taken_up, claude.session_id, claude.shown.usage, (before, after, cost_shown)

    with standin(calls(write), t.reply("Written."), t.reply("PELICAN.")) as server:
        session_id, usage = asyncio.run(first_kernel(server))
        (resumed, remembered, cost), session_after, usage_after, shown = asyncio.run(second_kernel(server))
        last = server.script.requests[-1]
    assert session_id and resumed == session_id  # taken from the store, not given
    assert remembered == 1 and cost == usage.cost_usd > 0
    assert "PELICAN, then write a.txt" in _texts(last) and "Which word?" in _texts(last)
    assert session_after == session_id
    assert usage_after.cost_usd > usage.cost_usd  # the session's cost goes on from the saved one
    saved = nt.SQLiteStore(db).load("analysis")
    assert saved.plugin_data["claude_code"] == {"session_id": session_id, "cwd": str(project)}
    before, after, shown_cost = shown
    assert before == [
        ("user", "Remember the word PELICAN, then write a.txt", None),
        ("thinking", "Let me do that.", "done"),
        ("tool", "Write", "done"),
        ("assistant", "Written.", None),
    ], before
    assert after == ["Remember the word PELICAN, then write a.txt", "Which word?"]  # the new turn follows
    assert shown_cost == usage.cost_usd  # the status line starts from the saved session's cost
    assert saved.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "PELICAN."}]}


def test_a_saved_session_of_another_folder_is_refused(tmp_path):
    pytest.importorskip("claude_agent_sdk")
    store = nt.InMemoryStore()
    state = nt.AgentState(
        agent_uuid="s", plugin_data={"claude_code": {"session_id": "x", "cwd": "/elsewhere"}}
    )
    store.save(state)
    with pytest.raises(nt.ConfigurationError, match="/elsewhere"):
        nt.ClaudeCode(cwd=tmp_path, store=store, session="s")
