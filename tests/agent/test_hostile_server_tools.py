"""Server tools declared clumsily; odd usage shapes."""

from __future__ import annotations

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.raw_streams import WEB, Raw, agent_on, lookup, run


@nt.tool
def web_search(query: str) -> str:
    """Search locally.

    Args:
        query: The query.
    """
    return "local"


def test_a_custom_tool_named_like_a_server_tool_is_refused_at_definition():
    script = t.ScriptedTransport(t.reply("never"))
    with pytest.raises(nt.ToolDefinitionError):
        nt.Agent(client=script.client(max_retries=0), tools=[web_search, WEB])


def test_a_server_tool_named_like_a_plugin_is_refused_at_definition():
    plugin = nt.Plugin("extras", tools=[lookup])
    script = t.ScriptedTransport(t.reply("never"))
    with pytest.raises(nt.ToolDefinitionError):
        nt.Agent(
            client=script.client(max_retries=0),
            tools=[{"type": "web_search_20250305", "name": "extras"}],
            plugins=[plugin],
        )


def test_server_tool_config_cannot_replace_the_type():
    with pytest.raises(nt.ToolDefinitionError):
        nt.server_tool("web_search", type="bogus_type")


def test_odd_usage_values_do_not_crash_the_turn():
    usage = {"input_tokens": 100, "output_tokens": 5, "cache_read_input_tokens": {"ephemeral": 3}}
    agent, _script, _ = agent_on(Raw({"type": "text", "text": "hi"}, usage=usage), t.reply("ok"))
    try:
        run(agent.run("hello"))
    except TypeError as exc:
        pytest.fail(f"an odd usage value crashed the turn: {exc}")
