"""Claude Code in the terminal front end: the real CLI (offline, against the stand-in) driven by `TerminalChat`.

The person types at plain lines (as piped input is read): a message, then an answer per card. The
approval shows what will be written, the approved file is on disk, the denied one is not
and the model reads the reason; the CLI's text, its tool cards and the turn's cost are on screen.
"""

import asyncio
import io
import os
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("claude_agent_sdk")

import pexpect
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from tests.support.claude_code_standin import MODEL, calls, offline_env, sleeper_running, standin
from tests.support.readiness import CEILING, wait_until

ROOT = Path(__file__).resolve().parents[2]


def test_approve_one_write_and_deny_another_in_the_terminal(tmp_path):
    yes, no = tmp_path / "yes.txt", tmp_path / "no.txt"
    first = t.tool_use("Write", {"file_path": str(yes), "content": "yes\n"}, id="toolu_t_yes")
    second = t.tool_use("Write", {"file_path": str(no), "content": "no\n"}, id="toolu_t_no")
    out = io.StringIO()
    console = Console(file=out, color_system=None, width=200, highlight=False, emoji=False)
    lines = ["Write yes.txt, then no.txt", "a", "d", "Only yes.txt, please.", "/tools", "/exit"]

    async def main(server):
        claude = nt.ClaudeCode(cwd=tmp_path, options=server.options())
        try:
            return await asyncio.wait_for(TerminalChat(claude, console=console, input=lines).run(), CEILING)
        finally:
            await claude.close()

    with standin(calls(first, text="Writing both."), calls(second), t.reply("Done.")) as server:
        code = asyncio.run(main(server))
        said, is_error = server.said_to_model("toolu_t_no")
    screen = out.getvalue()
    assert code == 0
    assert yes.read_text() == "yes\n" and not no.exists()
    assert is_error and "Only yes.txt, please." in said
    # The approval shows the path and the content it writes (its arguments; the diff in the card's
    # description is past its first line, which is all the terminal prints of it)
    assert "Claude Code wants to use Write: yes.txt" in screen and '"content": "yes\\n"' in screen
    assert "✓ Write → File created successfully" in screen  # the tool card, with the CLI's result
    assert "Writing both." in screen and "Done." in screen
    assert "/tools is not available with Claude Code" in screen
    assert "$" in screen  # the turn's cost


def test_python_m_notebook_tools_chat_claude_code_in_a_real_terminal(tmp_path):
    """`python -m notebook_tools chat --claude-code DIR` in a pseudo-terminal: approve a Write, then
    Ctrl+C during a long Bash stops it in seconds, and the next message carries on."""
    project = tmp_path / "project"
    project.mkdir()
    write = t.tool_use("Write", {"file_path": str(project / "made.txt"), "content": "made\n"})
    sleeper = "python3 -c 'import time; time.sleep(300)' && touch slept.txt"
    bash = t.tool_use("Bash", {"command": sleeper, "description": "wait"})
    steps = calls(write), t.reply("Written."), calls(bash), t.reply("Still here.")
    with standin(*steps) as server:
        env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
        env.update(offline_env(server.base_url, server.home))
        env.update(NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(ROOT))
        store = tmp_path / "sessions.db"
        argv = ["-m", "notebook_tools", "chat", "--claude-code", str(project), "--store", str(store)]
        argv += ["--resume", "work", "--model", MODEL]
        child = pexpect.spawn(
            sys.executable,
            argv,
            cwd=str(tmp_path),
            env=env,
            encoding="utf-8",
            dimensions=(50, 200),
            timeout=CEILING,
        )
        try:
            child.expect("Claude Code")
            child.expect("you>")
            child.send("Write made.txt\r")
            child.expect("Claude Code wants to use Write: made.txt")
            child.expect(r"\(a/d/e/r/t")
            child.send("a\r")
            child.expect("Written.")
            child.expect("you>")
            assert (project / "made.txt").read_text() == "made\n"
            child.send("Wait a while\r")
            child.expect(r"\(a/d/e/r/t")
            child.send("a\r")
            wait_until(lambda: sleeper_running(project), "the sleeper to run")
            started = time.monotonic()
            child.sendcontrol("c")
            child.expect("stopped")
            took = time.monotonic() - started
            child.expect("you>")
            child.send("Are you there?\r")
            child.expect("Still here.")
            child.expect("you>")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        asked = len(server.script.requests)
    assert child.exitstatus == 0
    assert took < 60, took  # cut short, far inside the 300 s sleep even on a loaded machine
    wait_until(lambda: not sleeper_running(project), "the stopped sleeper to end")  # (bounded; not instant)
    assert asked == 4 and not (project / "slept.txt").exists()
    saved = nt.SQLiteStore(store).load("work")  # the conversation is kept under the name given
    assert saved.plugin_data["claude_code"]["cwd"] == str(project)
    print(f"Ctrl+C during a 300 s Bash in the terminal: stopped in {took:.2f} s")
