"""Request options as a hostile or clumsy user gives them; the 4-breakpoint limit."""

from __future__ import annotations

import contextlib

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.raw_streams import WEB, agent_on, lookup, run


@pytest.mark.parametrize(
    "options",
    [
        {"temperature": True},
        {"temperature": "0.5"},
        {"top_k": True},
        {"request_extra": {"output_config": 3}, "effort": "low"},
    ],
)
def test_bad_option_types_are_a_configuration_error(options):
    script = t.ScriptedTransport(t.reply("never"))
    with pytest.raises(nt.ConfigurationError):
        nt.Agent(client=script.client(), **options)


def test_a_cache_breakpoint_in_the_persons_message_does_not_push_the_request_over_four():
    plugin = nt.Plugin("extras", tools=[lookup], instructions="Use lookup wisely.", start_collapsed=False)
    agent, script, _ = agent_on(t.reply("one"), t.reply("two"), system="SYS", plugins=[plugin], tools=[WEB])
    run(agent.run("first"))
    block = {"type": "text", "text": "a long document " * 50, "cache_control": {"type": "ephemeral"}}
    run(agent.run([block]))
    assert script.refused == [], script.refused[0].errors


def test_cache_ttl_none_sends_no_cache_control_anywhere():
    plugin = nt.Plugin("extras", tools=[lookup], instructions="Use lookup wisely.", start_collapsed=False)
    agent, script, _ = agent_on(
        t.reply("one"), t.reply("two"), system="SYS", plugins=[plugin], tools=[WEB], cache_ttl=None
    )
    run(agent.run("first"))
    run(agent.run("second"))
    assert "cache_control" not in str(script.requests)


def test_per_turn_options_given_to_run_are_checked_against_the_turn():
    agent, script, _ = agent_on(t.reply("never"), tools=[WEB], thinking="adaptive")
    with pytest.raises(nt.ConfigurationError):
        run(agent.run("hi", temperature=0.2))
    assert script.requests == []


@nt.tool
def doc() -> list:
    """Get the document."""
    return [{"type": "text", "text": "doc " * 100, "cache_control": {"type": "ephemeral"}}]


def test_a_tool_result_with_a_cache_breakpoint_does_not_brick_the_session():
    plugin = nt.Plugin("extras", tools=[lookup], instructions="Use lookup wisely.", start_collapsed=False)
    agent, script, _ = agent_on(
        t.reply("one"),
        t.turn(t.tool_use("doc", {})),
        t.reply("two"),
        t.reply("three"),
        system="SYS",
        plugins=[plugin],
        tools=[doc, WEB],
    )
    run(agent.run("first"))
    with contextlib.suppress(Exception):
        run(agent.run("get the doc"))
    with contextlib.suppress(Exception):
        run(agent.run("next"))
    assert script.refused == [], script.refused[0].errors
