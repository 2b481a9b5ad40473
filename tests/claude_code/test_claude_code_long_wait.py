"""A permission card left open for ten minutes: the real Claude Code CLI waits, the tool never runs.

Hosts of the Agent SDK report permission callbacks aborted after about a minute and the tool run
anyway. Here the CLI (from the `claude-agent-sdk` wheel, offline against the stand-in) asks to run
code; a person is there (a view's pings keep it present) but does not answer for ten minutes. All
that time the card stays open, the turn waits and nothing runs; then the person denies it: the tool
never ran and the model reads why.

Ten minutes of waiting and no CPU: `./dev check` runs this file (marker `long_wait`) beside the
browser tests, not among the two workers of the other tests.
"""

import asyncio
import time

import pytest

pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.prompts import PromptBroker
from tests.support.claude_code_standin import Person, bounded, calls, standin

pytestmark = pytest.mark.long_wait

LEFT_OPEN = 600.0
"""Seconds the card is left unanswered."""


def test_a_card_left_ten_minutes_keeps_waiting_and_its_tool_never_runs(tmp_path):
    ran = tmp_path / "ran.txt"
    command = {"command": "python3 -c \"open('ran.txt', 'w')\"", "description": "run"}
    code = t.tool_use("Bash", command, id="toolu_left_open")

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = asyncio.ensure_future(claude.send("Run the script"))
            card = await person.next_card()
            opened = time.monotonic()
            looks = 0
            while time.monotonic() - opened < LEFT_OPEN:
                await asyncio.sleep(10)
                broker.seen("test-view")  # the page is open: its pings keep the person present
                assert broker.prompts[card.tool_use_id].status == "pending"
                assert not turn.done(), "the turn ended while its card waited"
                assert not ran.exists(), "the tool ran while its card waited"
                looks += 1
            waited = time.monotonic() - opened
            person.decide(card, approved=False, reason="Not after all.")
            await bounded(turn)
        return claude, waited, looks

    with standin(calls(code), t.reply("Understood.")) as server:
        claude, waited, looks = asyncio.run(main(server))
        said, is_error = server.said_to_model("toolu_left_open")
    assert waited >= LEFT_OPEN and looks >= LEFT_OPEN // 10
    assert not ran.exists()
    assert [(name, r.behavior) for name, _, r in claude.decisions] == [("Bash", "deny")]
    assert is_error and "Not after all." in said
    print(f"the card waited {waited:.0f} s, looked at {looks} times: the tool never ran")
