"""The kernel toolset in the terminal: a consent card answered field by field, a risky run's approval.

The same broker prompts as the widget's: the consent card's printout is shown as lines, then its
form (what to send, which columns to mask, what to remember) is asked field by field.
"""

import asyncio
import io
import json

import palmerpenguins
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from tests.support.readiness import CEILING


def test_the_terminal_answers_a_consent_card_with_a_column_masked():
    ns = {"df": palmerpenguins.load_penguins()}
    script = t.ScriptedTransport(
        t.turn(t.tool_use("run_code", {"code": "print(df[['species', 'island']].head(3))"}, id="r1")),
        t.reply("Seen."),
    )
    kernel = nt.KernelTools(ns, approval="auto")
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel])
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, highlight=False, emoji=False)
    # the message; send: "mask"; mask: the 2nd column (island); remember: its default; then leave
    lines = ["show me rows", "mask", "2", "", "/exit"]
    chat = TerminalChat(agent, console=console, input=lines)
    assert asyncio.run(asyncio.wait_for(chat.run(), CEILING)) == 0
    told = script.requests[-1]["messages"][-1]["content"][0]["content"]
    assert "Adelie" in told and "Torgersen" not in told and "■■■" in told
    screen = out.getvalue()
    assert "would send:" in screen and "Torgersen" in screen  # the person saw what would go
    assert [(e.how, e.masked) for e in kernel.ledger.entries] == [("approved_masked", ["island"])]
    assert json.loads(json.dumps(agent.state.plugin_data["kernel"]))["ledger"][0]["masked"] == ["island"]
