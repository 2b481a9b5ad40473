"""Claude Code in the terminal front end: the real CLI (offline, against the stand-in) driven by `TerminalChat`.

The person types at plain lines (as piped input is read): a message, then an answer per card. The
approval shows what will be written, the approved file is on disk, the denied one is not
and the model reads the reason; the CLI's text, its tool cards and the turn's cost are on screen.
"""

import asyncio
import io

import pytest

pytest.importorskip("claude_agent_sdk")

from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from tests.support.claude_code_standin import calls, standin
from tests.support.readiness import CEILING


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
