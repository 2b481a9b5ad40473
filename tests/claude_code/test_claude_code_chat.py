"""Claude Code in the chat: the real CLI (offline, against the stand-in) driven through `nt.Chat`.

The chat is tested as its other tests do it, without a browser (`FakeView` sends what the front end
sends); the CLI runs for real, its tool calls scripted by the stand-in. What the transcript shows,
what the cards are, what reaches the disk and how fast Stop ends a long Bash are the checks.
"""

import asyncio
import time

import pytest

pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.browser_double import FakeView, first_pending, items, until
from tests.support.claude_code_standin import bounded, calls, sleeper_running, standin

DONE = t.reply("Done.")
SLEEPER = "python3 -c 'import time; time.sleep(300)'"


def chat_for(server, cwd, **kwargs):
    claude = nt.ClaudeCode(cwd=cwd, options=server.options(**kwargs))
    chat = nt.Chat(claude)
    view = FakeView(chat)
    view.custom({"type": "hello", "view_id": "v1"})
    return chat, view, claude


def test_a_turn_shows_the_text_the_tool_cards_and_the_cost_and_an_approved_write_writes(tmp_path):
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"})
    bash = t.tool_use("Bash", {"command": "mkdir made && echo from-bash", "description": "make a folder"})

    async def main(server):
        chat, view, claude = chat_for(server, tmp_path)
        turn = asyncio.ensure_future(chat.send("Write hello.txt, then echo"))
        card = await first_pending(chat, turn)
        prompt = chat.prompts[card]
        assert (prompt["kind"], prompt["name"]) == ("approval", "Write")
        assert prompt["preview"]["kind"] == "diff"  # the card shows what will be written, as a diff
        lines = prompt["preview"]["text"].splitlines()
        assert lines == ["--- /dev/null", f"+++ {target}", "@@ -0,0 +1 @@", "+hello"]
        assert "+hello" not in prompt["description"]  # once: in the preview, not again in the headline
        assert not target.exists()
        view.answer(card, {"value": {"approved": True}})
        card = await first_pending(chat, turn, seen={card})
        assert chat.prompts[card]["preview"] == {"kind": "command", "text": "$ mkdir made && echo from-bash"}
        view.answer(card, {"value": {"approved": True}})
        result = await bounded(turn)
        await claude.close()
        return chat, result

    with standin(calls(write, text="Writing it now."), calls(bash), DONE) as server:
        chat, result = asyncio.run(main(server))
    assert target.read_text() == "hello\n"
    assert result.stop_reason == "end_turn" and result.text == "Done."
    assert [u["text"] for u in items(chat, "user")] == ["Write hello.txt, then echo"]
    bubbles = [i["text"] for i in items(chat, "assistant")]
    assert "Writing it now." in bubbles and "Done." in bubbles
    tools = {i["name"]: i for i in items(chat, "tool")}
    assert tools["Write"]["status"] == "done" and tools["Bash"]["status"] == "done"
    assert tools["Write"]["shown"]["kind"] == "diff"  # the written file as a diff
    assert tools["Write"]["shown"]["data"]["modified"] == "hello\n"
    assert "from-bash" in str(tools["Bash"]["result"])  # the command's output on its card
    assert tools["Write"]["prompt"]["status"] == "answered"  # the card closed onto its tool card
    assert chat.view.usage["turn"]["cost_usd"] > 0 and chat.view.usage["requests"] == 3
    assert chat.status == "idle" and not chat.busy and chat.errors == []


def test_a_denied_write_is_not_written_and_its_card_says_why(tmp_path):
    target = tmp_path / "no.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "no\n"}, id="toolu_deny_1")

    async def main(server):
        chat, view, claude = chat_for(server, tmp_path)
        turn = asyncio.ensure_future(chat.send("Write no.txt"))
        card = await first_pending(chat, turn)
        view.answer(card, {"value": {"approved": False, "reason": "Not here."}})
        await bounded(turn)
        await claude.close()
        return chat

    with standin(calls(write), DONE) as server:
        chat = asyncio.run(main(server))
        said, is_error = server.said_to_model("toolu_deny_1")
    assert not target.exists()
    assert is_error and "Not here." in said  # the model reads the person's reason
    [card] = items(chat, "tool")
    assert card["status"] == "error" and "Not here." in str(card["result"])


def test_stop_during_a_long_bash_ends_the_turn_in_seconds_and_the_next_message_carries_on(tmp_path):
    slept = tmp_path / "slept.txt"
    # (A bare `sleep 300`, or one chained before another command, the CLI 2.1.332 blocks unasked.)
    sleep = t.tool_use("Bash", {"command": f"{SLEEPER} && touch slept.txt", "description": "wait"})

    async def main(server):
        chat, view, claude = chat_for(server, tmp_path)
        turn = asyncio.ensure_future(chat.send("Wait a while"))
        card = await first_pending(chat, turn)
        view.answer(card, {"value": {"approved": True}})
        await until(lambda: sleeper_running(tmp_path))  # the sleep is a process of its own now
        started = time.monotonic()
        view.custom({"type": "stop"})
        result = await bounded(turn)
        took = time.monotonic() - started
        asked = len(server.script.requests)
        # the CLI ends the command's process as it stops; it is gone a moment after the turn ended (a
        # quiet CI run looked in between): waited for, bounded by the shared ceiling
        await until(lambda: not sleeper_running(tmp_path))
        gone = True
        again = await bounded(chat.send("Are you there?"))  # the same CLI session goes on
        await claude.close()
        return chat, result, took, asked, gone, again

    with standin(calls(sleep), t.reply("Still here.")) as server:
        chat, result, took, asked, gone, again = asyncio.run(main(server))
        last = server.script.requests[-1]["messages"]
    assert result.stop_reason == "stopped"
    assert took < 60, took  # cut short, far inside the 300 s sleep even on a loaded machine
    assert asked == 1  # no request after the Stop: the model was not asked what to do next
    assert gone and not slept.exists()  # the command was ended, what it chained never ran
    bash = next(i for i in items(chat, "tool") if i["name"] == "Bash")
    assert bash["status"] == "error"  # the card does not spin on
    # and the kept conversation closes it too: a chat rebuilt after a restart shows no spinning card
    results = [
        b
        for m in chat.session.claude.shown.history
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("tool_use_id") == bash["id"]
    ]
    assert len(results) == 1 and results[0]["is_error"], results
    assert any(n["text"] == "Stopped." for n in items(chat, "notice"))
    assert again.stop_reason == "end_turn" and again.text == "Still here." and chat.status == "idle"
    assert "Wait a while" in str(last[0]["content"])  # the stopped turn is in the history sent
    print(f"Stop during a 300 s Bash: the turn ended in {took:.2f} s")


def test_stop_while_a_card_is_open_denies_it_and_a_late_approve_runs_nothing(tmp_path):
    target = tmp_path / "stopped.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"})

    async def main(server):
        chat, view, claude = chat_for(server, tmp_path)
        turn = asyncio.ensure_future(chat.send("Write stopped.txt"))
        card = await first_pending(chat, turn)
        chat.stop()
        result = await bounded(turn)
        view.answer(card, {"value": {"approved": True}})  # too late: refused, the call stays denied
        await asyncio.sleep(0)
        await claude.close()
        return chat, card, result

    with standin(calls(write)) as server:
        chat, card, result = asyncio.run(main(server))
    assert result.stop_reason == "stopped"
    assert chat.prompts[card]["status"] == "cancelled"
    assert not target.exists()
