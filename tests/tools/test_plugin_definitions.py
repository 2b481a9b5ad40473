"""Plugin and Skill definitions: hostile arguments, clashing names and shared tools refused up front."""

import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.toolset_agent import alpha, beta, group_a, make, names, run


def test_a_plugin_named_like_the_frontend_group_is_refused():
    with pytest.raises(nt.ToolDefinitionError):
        make(
            frontend_tools=[nt.user_confirm],
            collapse_frontend_tools=True,
            plugins=[nt.Plugin("frontend_tools", "x", [beta])],
        )


def test_same_tool_object_in_two_plugins_is_refused():
    with pytest.raises(nt.ToolDefinitionError):
        make(plugins=[nt.Plugin("p1", "", [alpha]), nt.Plugin("p2", "", [alpha])])


def test_the_same_plugin_in_plugins_and_available_is_fine():
    a = group_a()
    agent, script = make(t.reply("ok"), plugins=[a], available_plugins=[a])
    run(agent.run("go"))
    assert "group_a" in names(script.requests[0])


def test_plugin_constructor_hostile_arguments_raise_definition_errors():
    for kwargs in (
        {"tools": "alpha"},
        {"tools": [alpha, alpha]},
        {"description": 5},
        {"start_collapsed": "no"},
        {"expansion_message": b"x"},
        {"skills": [nt.Skill("alpha", "same name as a tool", ["alpha"])]},
        {"skills": ["not a skill"]},
    ):
        with pytest.raises(nt.ToolDefinitionError):
            nt.Plugin("p", **{"tools": [alpha], **kwargs})
    for args in (("s", "d", "alpha"), ("s", "d", []), ("bad name", "d", ["a"]), ("s", "d", [1])):
        with pytest.raises(nt.ToolDefinitionError):
            nt.Skill(*args)
