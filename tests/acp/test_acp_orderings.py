"""Orderings a real ACP agent makes only sometimes, made every time by a scripted one (tests/support/acp_fake_agent.py).

A tool call's notification and its permission request in one read; a request of a call the agent
never named; a request still on its way when the person stops the turn; a request the agent never
settles. None of them may open a way to run a tool the person did not allow.
"""

import asyncio
import json
import sys
from pathlib import Path

import notebook_tools as nt
from notebook_tools.prompts import PromptBroker
from tests.support.claude_code_standin import Person, bounded

FAKE = Path(__file__).resolve().parents[1] / "support" / "acp_fake_agent.py"
OPTIONS = [
    {"optionId": "once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def tool_call(call_id, **fields):
    update = {
        "sessionUpdate": "tool_call",
        "toolCallId": call_id,
        "title": fields.pop("title", call_id),
        **fields,
    }
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "$SESSION", "update": update},
    }


def asks(request_id, call_id, raw_input=None):
    call = {"toolCallId": call_id, "title": call_id, **({"rawInput": raw_input} if raw_input else {})}
    params = {"sessionId": "$SESSION", "toolCall": call, "options": OPTIONS}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission", "params": params}


def fake(tmp_path, *turns):
    script, log = tmp_path / "script.json", tmp_path / "received.jsonl"
    script.write_text(json.dumps(list(turns)))
    return [sys.executable, str(FAKE), str(script), str(log)], log


def answers(log):
    """The client's answers to the agent's requests, by request id."""
    received = [json.loads(line) for line in log.read_text().splitlines()]
    return {m["id"]: m.get("result") for m in received if "method" not in m and "id" in m}


def outcome(result):
    return result["outcome"].get("optionId") or result["outcome"]["outcome"]


def test_a_request_read_with_its_tool_call_gets_the_tools_name_on_its_card(tmp_path):
    meta = {"claudeCode": {"toolName": "Write"}}
    command, log = fake(
        tmp_path,
        [
            {"write": [tool_call("c1", kind="edit", _meta=meta), asks(7, "c1", {"file_path": "a"})]},
            {"await": 7},
        ],
    )

    async def main():
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ACPAgent(command, cwd=tmp_path, broker=broker) as agent:
            turn = asyncio.ensure_future(agent.send("go"))
            card = await person.next_card()
            person.decide(card, approved=True)
            await bounded(turn)
        return card

    card = asyncio.run(main())
    assert card.name == "Write"
    assert outcome(answers(log)[7]) == "once"


def test_remembering_a_call_the_agent_never_named_does_not_allow_the_next_one(tmp_path):
    # Two calls named by nothing (no tool name, no kind, no input): "remember every call of this
    # tool" and "these arguments" must not turn into "allow anything unnamed".
    command, log = fake(
        tmp_path,
        [{"write": [asks(1, "c1")]}, {"await": 1}],
        [{"write": [asks(2, "c2")]}, {"await": 2}],
        [{"write": [asks(3, "c3")]}, {"await": 3}],
    )

    async def main():
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ACPAgent(command, cwd=tmp_path, broker=broker) as agent:
            asked = []
            for remember in ("tool", "arguments", None):
                turn = asyncio.ensure_future(agent.send("go"))
                card = await person.next_card()  # asked every time
                asked.append(card.name)
                person.decide(card, approved=remember is not None, remember=remember)
                await bounded(turn)
        return asked, agent

    asked, agent = asyncio.run(main())
    assert len(asked) == 3 and agent.tools_allowed == set() and agent.remembered == []
    got = answers(log)
    assert [outcome(got[i]) for i in (1, 2, 3)] == ["once", "once", "no"]


def test_a_request_on_its_way_when_the_turn_is_stopped_is_cancelled_without_a_card(tmp_path):
    command, log = fake(
        tmp_path,
        [
            {"write": [asks(1, "c1", {"command": "rm -rf build"})]},
            {"on_cancel": [asks(2, "c2", {"command": "rm -rf ~"})]},
            {"await": 1},
            {"await": 2},
            {"end": "cancelled"},
        ],
    )

    async def main():
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ACPAgent(command, cwd=tmp_path, broker=broker) as agent:
            turn = asyncio.ensure_future(agent.send("go"))
            first = await person.next_card()
            await agent.interrupt()
            updates = await bounded(turn)
        return first, updates, person, broker

    first, updates, person, broker = asyncio.run(main())
    got = answers(log)
    assert outcome(got[1]) == "cancelled" and outcome(got[2]) == "cancelled"
    assert [p.tool_use_id for p in person.seen] == [first.tool_use_id]  # no card for the late one
    assert updates[-1].stop_reason == "cancelled"
    assert all(p.status != "pending" for p in broker.prompts.values())


def test_a_request_the_agent_never_settles_is_closed_when_its_turn_ends(tmp_path):
    # The agent gives up on its request (its `$/cancel_request` the client library does not read)
    # and ends the turn: the card must not stay open, answerable after the turn.
    command, _ = fake(tmp_path, [{"write": [asks(1, "c1", {"command": "make"})]}, {"end": "end_turn"}])

    async def main():
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ACPAgent(command, cwd=tmp_path, broker=broker) as agent:
            await bounded(agent.send("go"))
            card = person.seen[0] if person.seen else await person.next_card()
            await asyncio.sleep(0)  # (the card's closing is published on the loop)
            return broker.prompts[card.tool_use_id].status

    assert asyncio.run(main()) == "cancelled"
