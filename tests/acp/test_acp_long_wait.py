"""A permission card of an ACP agent left open for ten minutes: the agent waits, the tool never runs.

As for `nt.ClaudeCode` (tests/claude_code/test_claude_code_long_wait.py), but through
`@agentclientprotocol/claude-agent-acp`: its `session/request_permission` is a JSON-RPC request
with no deadline of the protocol's, so a host or an adapter that gave up after a while (and ran the
tool, or left the agent stuck) would show here. A person is there (a view's pings keep them present)
and does not answer for ten minutes; then rejects: the tool never ran and the model reads a refusal.

Ten minutes of waiting and no CPU: `./dev check` runs the `long_wait` files beside the browser tests.
"""

import asyncio
import time

import pytest

pytest.importorskip("acp")
pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.prompts import PromptBroker
from tests.support.acp_standin import acp_standin, agent_command, agent_env
from tests.support.claude_code_standin import Person, bounded, calls

pytestmark = pytest.mark.long_wait

LEFT_OPEN = 600.0
"""Seconds the card is left unanswered."""


def test_an_acp_card_left_ten_minutes_keeps_waiting_and_its_tool_never_runs(tmp_path):
    ran = tmp_path / "ran.txt"
    command = {"command": "python3 -c \"open('ran.txt', 'w')\"", "description": "run"}
    code = t.tool_use("Bash", command, id="toolu_acp_left_open")

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        agent = nt.ACPAgent(agent_command(), cwd=tmp_path, env=agent_env(server), broker=broker)
        async with agent:
            turn = asyncio.ensure_future(agent.send("Run the script"))
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
            person.decide(card, approved=False)
            updates = await bounded(turn)
        return agent, waited, looks, updates

    with acp_standin(calls(code), t.reply("Understood.")) as server:
        agent, waited, looks, updates = asyncio.run(main(server))
        _, is_error = server.said_to_model("toolu_acp_left_open")
    assert waited >= LEFT_OPEN and looks >= LEFT_OPEN // 10
    assert not ran.exists()
    assert [(name, kind) for name, _, kind in agent.decisions] == [("Bash", "reject_once")]
    assert is_error and updates[-1].result == "Understood."
    print(f"the card waited {waited:.0f} s, looked at {looks} times: the tool never ran")
