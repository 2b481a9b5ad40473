"""An ACP agent in the chat and the terminal: Claude Code through claude-agent-acp, driven by `nt.Chat`.

The chat is tested as its other tests do it, without a browser (`FakeView` sends what the front end
sends); the agent runs for real, its tool calls scripted by the stand-in.
"""

import asyncio

import pytest

pytest.importorskip("acp")
pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.acp_standin import acp_standin, agent_command, agent_env
from tests.support.browser_double import FakeView, first_pending, items, until
from tests.support.claude_code_standin import bounded, calls, sleeper_running

SLEEPER = "python3 -c 'import time; time.sleep(300)'"


def chat_for(server, cwd, **kwargs):
    agent = nt.ACPAgent(agent_command(), cwd=cwd, env=agent_env(server), **kwargs)
    chat = nt.Chat(agent)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "v1"})
    return chat, view, agent


def test_a_turn_shows_text_cards_and_cost_and_the_card_has_no_editor(tmp_path):
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"})

    async def main(server):
        chat, view, agent = chat_for(server, tmp_path)
        turn = asyncio.ensure_future(chat.send("Write hello.txt"))
        card = await first_pending(chat, turn)
        prompt = chat.prompts[card]
        assert (prompt["kind"], prompt["name"], prompt["editable"]) == ("approval", "Write", False)
        assert prompt["preview"]["kind"] == "diff" and "+hello" in prompt["preview"]["text"].splitlines()
        view.answer(card, {"value": {"approved": True}})
        result = await bounded(turn)
        await agent.close()
        return chat, result

    with acp_standin(calls(write, text="Writing it now."), t.reply("Done.")) as server:
        chat, result = asyncio.run(main(server))
    assert target.read_text() == "hello\n"
    assert result.stop_reason == "end_turn" and result.text.endswith("Done.")
    assert [u["text"] for u in items(chat, "user")] == ["Write hello.txt"]
    bubbles = " ".join(i["text"] for i in items(chat, "assistant"))
    assert "Writing it now." in bubbles and "Done." in bubbles
    [tool] = [i for i in items(chat, "tool") if i["name"] == "Write"]
    assert tool["status"] == "done" and tool["shown"]["kind"] == "diff"
    assert chat.view.usage["turn"]["cost_usd"] > 0
    assert chat.status == "idle" and not chat.busy and chat.errors == []


def test_stop_in_the_chat_cancels_a_long_bash_and_the_next_message_carries_on(tmp_path):
    sleep = t.tool_use("Bash", {"command": f"{SLEEPER} && touch slept.txt", "description": "wait"})

    async def main(server):
        chat, view, agent = chat_for(server, tmp_path)
        turn = asyncio.ensure_future(chat.send("Wait a while"))
        card = await first_pending(chat, turn)
        view.answer(card, {"value": {"approved": True}})
        await until(lambda: sleeper_running(tmp_path))
        view.custom({"type": "stop"})
        result = await bounded(turn)
        await until(lambda: not sleeper_running(tmp_path))
        again = await bounded(chat.send("Are you there?"))
        await agent.close()
        return chat, result, again

    with acp_standin(calls(sleep), t.reply("Still here.")) as server:
        chat, result, again = asyncio.run(main(server))
    assert result.stop_reason == "stopped"
    assert not (tmp_path / "slept.txt").exists()
    [bash] = [i for i in items(chat, "tool") if i["name"] == "Bash"]
    assert bash["status"] == "error"  # its card does not spin on
    assert again.text == "Still here."


def test_a_chat_made_after_a_restart_shows_the_turns_before(tmp_path):
    store = nt.SQLiteStore(tmp_path / "sessions.db")
    project = tmp_path / "project"
    project.mkdir()

    async def main(server):
        chat, _, agent = chat_for(server, project, store=store, session="kept")
        await bounded(chat.send("Hello there"))
        await agent.close()
        again = nt.ACPAgent(agent_command(), cwd=project, env=agent_env(server), store=store, session="kept")
        return nt.Chat(again)

    with acp_standin(t.reply("Hi.")) as server:
        chat = asyncio.run(main(server))
    assert [u["text"] for u in items(chat, "user")] == ["Hello there"]
    assert "Hi." in " ".join(i["text"] for i in items(chat, "assistant"))


def test_the_terminal_asks_an_acp_agents_card_without_an_edit_choice(tmp_path):
    import io

    from rich.console import Console

    from notebook_tools.terminal import TerminalChat

    target = tmp_path / "t.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "t\n"})
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)

    async def main(server):
        agent = nt.ACPAgent(agent_command(), cwd=tmp_path, env=agent_env(server))
        try:
            lines = ["Write t.txt", "a", "/exit"]
            return await bounded(TerminalChat(agent, console=console, input=lines).run())
        finally:
            await agent.close()

    with acp_standin(calls(write), t.reply("Done.")) as server:
        code = asyncio.run(main(server))
    screen = out.getvalue()
    assert code == 0 and target.read_text() == "t\n"
    assert "Approve" in screen and "Edit the arguments" not in screen
    assert "The ACP agent in" in screen and "Done." in screen
