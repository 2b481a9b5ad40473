"""Plugins in the terminal: /plugins, /expand, /collapse, and tool-set changes as dim lines."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import textwrap
from pathlib import Path

import pexpect
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from notebook_tools.terminal._commands import HELP, parse_slash
from tests.support.readiness import CEILING

ROOT = Path(__file__).resolve().parents[2]

AGENT = '''
import notebook_tools as nt
from notebook_tools import testing as t

@nt.tool
def drop_nulls(column: str) -> str:
    """Drop rows whose `column` is null.

    Args:
        column: Name of the column.
    """
    return "dropped"

@nt.tool
def plot(column: str) -> str:
    """Plot a column.

    Args:
        column: Name of the column.
    """
    return "plotted"

def make_agent(script):
    cleaning = nt.Plugin(
        "cleaning", "Clean a DataFrame", tools=[drop_nulls],
        skills=[nt.Skill("quick_clean", "Drop nulls, fast", tools=["drop_nulls"])],
    )
    plotting = nt.Plugin("plotting", "Plots", tools=[plot])
    return nt.Agent(client=script.client(), model="claude-test", plugins=[cleaning, plotting])
'''
namespace: dict = {}
exec(AGENT, namespace)  # one definition for the in-process tests and the pseudo-terminal's child
make_agent = namespace["make_agent"]


def plain_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, color_system=None, width=200, highlight=False, emoji=False), out


def test_the_commands_parse_as_in_the_widget():
    assert parse_slash("/plugins").kind == "plugins"  # type: ignore[union-attr]
    command = parse_slash("/expand cleaning")
    assert command is not None and (command.kind, command.name) == ("expand", "cleaning")
    assert parse_slash("/collapse cleaning").kind == "collapse"  # type: ignore[union-attr]
    assert parse_slash("/expand").message == "usage: /expand NAME"  # type: ignore[union-attr]
    assert parse_slash("/collapse a b").message == "usage: /collapse NAME"  # type: ignore[union-attr]
    assert parse_slash("/plugins x").message == "/plugins takes no arguments"  # type: ignore[union-attr]
    for line in ("/plugins", "/expand NAME", "/collapse NAME"):
        assert line in HELP


def test_plugins_expand_collapse_and_the_lines_the_changes_print():
    script = t.ScriptedTransport(
        t.turn("Cleaning.", t.tool_use("cleaning", {}, id="c1"), t.tool_use("quick_clean", {}, id="c2")),
        t.reply("Cleaned."),
        t.reply("Fine."),
    )
    agent = make_agent(script)
    console, out = plain_console()
    lines = [
        "/plugins",
        "/expand plotting",
        "/expand plotting",
        "/collapse nope",
        "/expand",
        "clean it",
        "/collapse cleaning",
        "/plugins",
        "thanks",
        "/exit",
    ]
    assert (
        asyncio.run(asyncio.wait_for(TerminalChat(agent, console=console, input=lines).run(), CEILING)) == 0
    )
    screen = out.getvalue()
    first, _, rest = screen.partition("You expanded plotting")
    assert "cleaning   collapsed · 1 tools   quick_clean   Clean a DataFrame" in first
    assert "plotting   collapsed · 1 tools                 Plots" in first
    assert "· You expanded plotting" in screen
    assert "plotting is already expanded" in rest
    assert "no plugin named 'nope' in this session; plugins: cleaning, plotting" in rest
    assert "usage: /expand NAME" in rest
    assert "· cleaning expanded · 1 tool: drop_nulls" in rest
    assert "· Skill quick_clean activated · 1 tool: drop_nulls" in rest
    assert "✗ cleaning" not in screen and "⚙ cleaning" not in screen  # a container is no tool card
    assert "· You collapsed cleaning" in rest
    assert "cleaning   collapsed · 1 tools   quick_clean" in rest.rpartition("You collapsed cleaning")[2]
    # the model is told: with the first message after /expand, and after /collapse
    assert [tool["name"] for tool in script.requests[0]["tools"]] == ["cleaning", "quick_clean", "plot"]
    first_message = script.requests[0]["messages"][-1]["content"]
    assert first_message[0]["text"].startswith("[The user expanded the plugin plotting")
    last = script.requests[-1]
    assert [tool["name"] for tool in last["tools"]] == ["cleaning", "quick_clean", "plot"]
    assert last["messages"][-1]["content"][0]["text"].startswith("[The user collapsed the plugin cleaning")

    # a loaded session shows the same lines again, not tool cards or the notes as if typed
    console, out = plain_console()
    assert (
        asyncio.run(asyncio.wait_for(TerminalChat(agent, console=console, input=["/exit"]).run(), CEILING))
        == 0
    )
    history = out.getvalue()
    for line in (
        "· You expanded plotting",
        "· cleaning expanded · 1 tool: drop_nulls",
        "· Skill quick_clean activated · 1 tool: drop_nulls",
        "· You collapsed cleaning",
        "you> clean it",
        "you> thanks",
    ):
        assert line in history, line
    assert "[The user" not in history and "cleaning({})" not in history


def test_a_plugin_change_by_a_tool_result_names_the_tool():
    admin = nt.Plugin("admin", "Administration", tools=[nt.tool(lambda: "gone", name="delete_all")])

    @nt.tool
    def load_data() -> nt.Augmented:
        """Load the data (and become admin)."""
        return nt.Augmented("loaded", inject=[admin], hide=["delete_all"])

    script = t.ScriptedTransport(t.turn(t.tool_use("load_data", {}, id="l1")), t.reply("Done."))
    agent = nt.Agent(
        client=script.client(), model="claude-test", tools=[load_data], available_plugins=[admin]
    )
    console, out = plain_console()
    lines = ["load", "/exit"]
    assert (
        asyncio.run(asyncio.wait_for(TerminalChat(agent, console=console, input=lines).run(), CEILING)) == 0
    )
    assert "· Tools changed by load_data: injected admin" in out.getvalue()
    assert "· Tools changed by load_data: hidden delete_all" in out.getvalue()


def test_plugins_in_a_real_terminal(tmp_path: Path) -> None:
    driver = tmp_path / "chat.py"
    driver.write_text(
        AGENT
        + textwrap.dedent(
            """
            import asyncio
            from notebook_tools.terminal import TerminalChat
            script = t.ScriptedTransport(t.reply("Noted."))
            agent = make_agent(script)
            asyncio.run(TerminalChat(agent).run())
            print("tools:", [tool["name"] for tool in script.requests[-1]["tools"]])
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(ROOT))
    child = pexpect.spawn(
        sys.executable,
        [str(driver)],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=CEILING,
    )
    try:
        child.expect("you>")
        child.send("/plugins\r")
        child.expect(r"plotting\s+collapsed")
        child.send("/expand plotting\r")
        child.expect("· You expanded plotting")
        child.expect("the model hears of this with your next message")
        child.send("go on\r")
        child.expect("Noted.")
        child.send("\x04")  # Ctrl+D leaves
        child.expect(r"tools: \['cleaning', 'quick_clean', 'plot'\]")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
