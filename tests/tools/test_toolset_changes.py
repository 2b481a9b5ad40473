"""Tool-set changes by results and container calls: hostile names, skills, the frontend group, invariants."""

import json

import pandas as pd
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from tests.support.toolset_agent import (
    ask_color,
    body_ok,
    every_call_answered,
    group_a,
    group_b,
    loose,
    make,
    names,
    results_of,
    run,
)


@pytest.mark.parametrize(
    "change",
    [
        {"hide": ["group_a"]},  # a container name as a tool
        {"show": ["only_alpha"]},  # a skill as a tool
        {"expand": ["only_alpha"]},  # a skill as a plugin
        {"inject": ["alpha"]},  # a tool as a plugin
        {"collapse": [""]},
        {"remove": ["gröup_ä"]},
        {"hide": ["alpha", "alpha", "x" * 10_000]},
        {"expand": ["group_a"] * 5000 + ["nope"]},
    ],
)
def test_hostile_augmentation_names_are_refused_whole_and_the_model_told(change):
    @nt.tool
    def changer() -> nt.Augmented:
        """Changes."""
        return nt.Augmented("did", **change)

    agent, script = make(t.turn(t.tool_use("changer", id="c")), t.reply("ok"), tools=[loose, changer])
    run(agent.run("go"))
    body_ok(script)
    block = results_of(script.requests[1])["c"]
    assert block["content"].startswith("did\n(Its change to the available tools was refused:")
    assert script.requests[1]["tools"] == script.requests[0]["tools"]
    assert agent.state.toolset == nt.ToolsetState()


def test_duplicates_and_huge_lists_of_known_names_apply_once():
    @nt.tool
    def changer() -> nt.Augmented:
        """Changes."""
        return nt.Augmented("did", expand=["group_a"] * 3000, hide=["beta"] * 3000)

    agent, script = make(t.turn(t.tool_use("changer", id="c")), t.reply("ok"), tools=[loose, changer])
    run(agent.run("go"))
    body_ok(script)
    assert names(script.requests[1]) == ["loose", "changer", "alpha", "only_alpha", "group_b"]


def test_removing_a_plugin_while_its_skill_is_active_ends_the_skill():
    @nt.tool
    def drop_a() -> nt.Augmented:
        """Removes group_a."""
        return nt.Augmented("removed", remove=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("only_alpha", id="s")),
        t.turn(t.tool_use("drop_a", id="d")),
        t.turn(t.tool_use("alpha", {"x": "1"}, id="a")),
        t.reply("ok"),
        tools=[loose, drop_a],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])
    assert "ALPHA SKILL" in json.dumps(script.requests[1]["system"])
    assert not {"alpha", "beta", "group_a", "only_alpha"} & set(names(script.requests[2]))
    assert "ALPHA SKILL" not in json.dumps(script.requests[2].get("system", []))
    assert agent.state.toolset.skills == []
    block = results_of(script.requests[3])["a"]
    assert block["is_error"] and "not part of this session" in block["content"]


def test_hiding_a_tool_inside_an_active_skill_and_hiding_all_of_a_skill():
    @nt.tool
    def hider() -> nt.Augmented:
        """Hides alpha."""
        return nt.Augmented("hid", hide=["alpha"])

    agent, script = make(
        t.turn(t.tool_use("only_alpha", id="s")),
        t.turn(t.tool_use("hider", id="h")),
        t.turn(t.tool_use("alpha", id="a"), t.tool_use("only_alpha", id="s2"), t.tool_use("group_a", id="g")),
        t.reply("ok"),
        tools=[loose, hider],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])
    assert "alpha" not in names(script.requests[2])
    assert "only_alpha" not in names(script.requests[2])  # the active skill offers nothing now
    got = results_of(script.requests[3])
    assert got["a"]["is_error"] and "hidden" in got["a"]["content"]
    assert every_call_answered(agent.state)


def test_collapse_frontend_tools_leaves_frontend_tools_of_plugins_in_their_plugins():
    colors = nt.Plugin("colors", "Color prompts", [ask_color])
    agent, script = make(
        t.turn(t.tool_use("frontend_tools", id="f")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm],
        collapse_frontend_tools=True,
        frontend_instructions="FRONTEND RULES",
        plugins=[colors],
    )
    run(agent.run("go"))
    body_ok(script)
    assert names(script.requests[0]) == ["loose", "frontend_tools", "colors"]
    assert names(script.requests[1]) == ["loose", "user_confirm", "colors"]
    assert "FRONTEND RULES" in json.dumps(script.requests[1]["system"])
    assert "FRONTEND RULES" not in json.dumps(script.requests[0].get("system", []))


def test_many_plugins_and_changes_never_exceed_four_breakpoints_and_names_stay_unique():
    plugins = [
        nt.Plugin(
            f"p{i}",
            f"P {i}",
            [nt.tool(name=f"t{i}_{j}")(lambda: "x") for j in range(3)],
            instructions=f"I{i}",
            skills=[nt.Skill(f"s{i}", "s", [f"t{i}_0"], instructions="S")],
        )
        for i in range(10)
    ]
    steps = [t.turn(*[t.tool_use(f"p{i}", id=f"e{i}"), t.tool_use(f"s{i}", id=f"k{i}")]) for i in range(10)]
    agent, script = make(*steps, t.reply("ok"), plugins=plugins, system="SYS")
    run(agent.run("go"))
    body_ok(script)
    assert len(script.requests) == 11


def test_truncated_reply_calling_a_container_gets_an_error_and_changes_nothing():
    agent, script = make(t.turn(t.tool_use("group_a", id="g"), stop_reason="max_tokens"), t.reply("ok"))
    # A cut-off reply ends the turn (issue 27): the person hears why, nothing is re-requested on its own.
    assert run(agent.run("go")).stop_reason == "max_tokens" and len(script.requests) == 1
    assert agent.state.toolset == nt.ToolsetState()
    run(agent.run("again"))
    assert script.requests[1]["tools"] == script.requests[0]["tools"]
    body_ok(script)
    block = results_of(script.requests[1])["g"]
    assert block["is_error"] and "max_tokens" in block["content"]


def test_augmented_wrapping_a_dataframe_keeps_both():
    @nt.tool
    def give() -> nt.Augmented:
        """Frame and expand."""
        return nt.Augmented(pd.DataFrame({"a": [1, 2]}), expand=["group_a"])

    agent, script = make(t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give])
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])
    assert results_of(script.requests[1])["g"]["content"].startswith("DataFrame: 2 rows x 1 columns")
    assert isinstance(agent.results["g"].value, pd.DataFrame)


def test_augmented_none_value_and_empty_augmentation():
    @nt.tool
    def nothing() -> nt.Augmented:
        """Nothing."""
        return nt.Augmented(None)

    @nt.tool
    def empty_str() -> nt.Augmented:
        """Empty."""
        return nt.Augmented("", expand=["group_a"])

    agent, script = make(
        t.turn(t.tool_use("nothing", id="n"), t.tool_use("empty_str", id="e")),
        t.reply("ok"),
        tools=[nothing, empty_str],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])


def test_a_manual_run_of_a_plugin_tool_can_augment():
    @nt.tool(mode="both")
    def opener() -> nt.Augmented:
        """Opens group_b."""
        return nt.Augmented("opened", expand=["group_b"])

    p = nt.Plugin("tools_p", "T", [opener])
    agent, script = make(t.reply("ok"), plugins=[group_a(), group_b(), p])
    result = run(agent.run_manual("opener", {}))
    assert result.content == "opened" and result.augmentation is None
    run(agent.run("go"))
    body_ok(script)
    assert "gamma" in names(script.requests[0])
    assert script.requests[0]["messages"][-1]["content"][0]["text"].startswith(
        "[The user ran the tool `opener`"
    )


def test_order_of_tools_does_not_depend_on_the_order_of_changes():
    a1, _ = make()
    s = a1.toolset.apply(nt.ToolsetState(), nt.Augmentation(expand=["group_b"]))
    s = a1.toolset.apply(s, nt.Augmentation(expand=["group_a"], hide=["loose"]))
    s2 = a1.toolset.apply(nt.ToolsetState(), nt.Augmentation(hide=["loose"], expand=["group_a"]))
    s2 = a1.toolset.apply(s2, nt.Augmentation(expand=["group_b"]))
    assert s == s2
    assert a1.toolset.definitions(s) == a1.toolset.definitions(s2)


def test_augmented_with_both_change_and_keywords_is_a_tool_error():
    @nt.tool
    def both() -> nt.Augmented:
        """Both."""
        return nt.Augmented("x", nt.Augmentation(expand=["group_a"]), hide=["loose"])

    agent, script = make(t.turn(t.tool_use("both", id="b")), t.reply("ok"), tools=[loose, both])
    run(agent.run("go"))
    body_ok(script)
    assert results_of(script.requests[1])["b"]["is_error"]


def test_a_container_call_with_unexpected_input_still_expands():
    agent, script = make(t.turn(t.tool_use("group_a", {"junk": [1, 2]}, id="g")), t.reply("ok"))
    run(agent.run("go"))
    body_ok(script)
    assert "alpha" in names(script.requests[1])


def test_the_same_container_called_twice_in_one_reply():
    agent, script = make(
        t.turn(
            t.tool_use("group_a", id="g1"),
            t.tool_use("group_a", id="g2"),
            t.tool_use("only_alpha", id="s1"),
            t.tool_use("only_alpha", id="s2"),
        ),
        t.reply("ok"),
    )
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    run(agent.run("go"))
    body_ok(script)
    got = results_of(script.requests[1])
    assert got["g1"]["content"].startswith("group_a expanded.")
    assert got["g2"]["content"].startswith("group_a is already expanded.")
    assert got["s2"]["content"].startswith("only_alpha skill is already active.")
    assert [(e.change, e.names) for e in recorder.of_type("toolset_changed")] == [
        ("expanded", ["group_a"]),
        ("skill_activated", ["only_alpha"]),
    ]


def test_unicode_context_goes_into_the_system_prompt():
    @nt.tool
    def changer() -> nt.Augmented:
        """Changes."""
        return nt.Augmented("did", context=[("usér", "ünïcødé 🚀")])

    agent, script = make(t.turn(t.tool_use("changer", id="c")), t.reply("ok"), tools=[loose, changer])
    run(agent.run("go"))
    body_ok(script)
    assert script.requests[1]["system"][-1]["text"] == "Context:\n- usér: ünïcødé 🚀"


def test_show_offers_a_tool_hidden_by_definition_for_the_first_time():
    @nt.tool
    def reveal() -> nt.Augmented:
        """Reveal."""
        return nt.Augmented("shown", show=["gamma"])

    agent, script = make(
        t.turn(t.tool_use("reveal", id="v")),
        t.reply("ok"),
        tools=[loose, reveal],
        plugins=[group_b(start_collapsed=False)],
        hidden_tools=["gamma"],
    )
    run(agent.run("go"))
    body_ok(script)
    assert "gamma" not in names(script.requests[0]) and "gamma" in names(script.requests[1])
    assert agent.state.toolset.tools == {"gamma": True}
