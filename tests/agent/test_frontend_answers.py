"""Answers to frontend tools carrying rich content or tool-set changes: checked, refused whole or applied."""

import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t
from tests.support.toolset_agent import (
    PNG,
    ask_color,
    body_ok,
    every_call_answered,
    loose,
    make,
    names,
    results_of,
    run,
)


def test_frontend_rich_answer_for_a_tool_with_output_schema():
    agent, script = make(
        t.turn(t.tool_use("user_confirm", {"message": "ok?"}, id="u")),
        t.reply("ok"),
        frontend_tools=[nt.user_confirm],
    )
    run(agent.run("go"))
    with pytest.raises(nt.InvalidToolResultError):
        run(agent.resume([{"tool_use_id": "u", "content": r.text("maybe")}]))
    run(agent.resume([{"tool_use_id": "u", "content": r.text("yes")}]))
    body_ok(script)
    assert results_of(script.requests[1])["u"]["content"] == "yes"


def test_a_browser_answer_with_a_badly_typed_augmentation_is_refused_cleanly():
    agent, script = make(t.turn(t.tool_use("ask_color", id="q")), t.reply("ok"), frontend_tools=[ask_color])
    run(agent.run("go"))
    before = agent.state
    for bad in (
        {"expand": "group_a"},
        {"expand": [1]},
        {"nope": []},
        {"context": [{"key": "", "value": "v"}]},
        "x",
        5,
    ):
        with pytest.raises(nt.InvalidToolResultError):
            run(agent.resume([{"tool_use_id": "q", "content": "red", "augmentation": bad}]))
        assert agent.state == before
    run(
        agent.resume(
            [
                {
                    "tool_use_id": "q",
                    "content": "red",
                    "augmentation": {"expand": ["group_a"], "hide": ["beta"]},
                }
            ]
        )
    )
    body_ok(script)
    assert "alpha" in names(script.requests[1]) and "beta" not in names(script.requests[1])


def test_frontend_tool_of_a_plugin_answered_after_the_plugin_was_removed():
    colors = nt.Plugin("colors", "c", [ask_color], start_collapsed=False)

    @nt.tool
    def drop() -> nt.Augmented:
        """Drop colors."""
        return nt.Augmented("dropped", remove=["colors"])

    agent, script = make(
        t.turn(t.tool_use("ask_color", id="q"), t.tool_use("drop", id="d")),
        t.reply("ok"),
        tools=[loose, drop],
        plugins=[colors],
    )
    assert run(agent.run("go")).stop_reason == "awaiting_frontend_tools"
    run(agent.resume([{"tool_use_id": "q", "content": "blue"}]))
    body_ok(script)
    assert "ask_color" not in names(script.requests[1])
    assert results_of(script.requests[1])["q"]["content"] == "blue"


def test_a_persons_image_answer_reaches_the_model_as_an_image_block():
    agent, script = make(t.turn(t.tool_use("ask_color", id="u")), t.reply("ok"), frontend_tools=[ask_color])
    run(agent.run("go"))
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    run(agent.resume([{"tool_use_id": "u", "content": r.binary(PNG, "image/png")}]))
    body_ok(script)
    content = results_of(script.requests[1])["u"]["content"]
    assert [b["type"] for b in content] == ["text", "image"]
    assert [e.shown.kind for e in recorder.of_type("tool_completed")] == ["binary"]


def test_a_frontend_tool_with_a_text_schema_refuses_an_image_answer():
    agent, script = make(
        t.turn(t.tool_use("ask_text", {"prompt": "?"}, id="u")), t.reply("ok"), frontend_tools=[nt.ask_text]
    )
    run(agent.run("go"))
    before = agent.state
    with pytest.raises(nt.InvalidToolResultError, match="is not of type 'string'"):
        run(agent.resume([{"tool_use_id": "u", "content": r.binary(PNG, "image/png")}]))
    assert agent.state == before and len(script.requests) == 1


def test_partial_answers_with_augmentations_accumulate_then_continue():
    agent, script = make(
        t.turn(t.tool_use("ask_color", id="q1"), t.tool_use("ask_color", id="q2")),
        t.reply("ok"),
        frontend_tools=[ask_color],
    )
    run(agent.run("go"))
    run(agent.accept([{"tool_use_id": "q1", "content": "red", "augmentation": {"expand": ["group_a"]}}]))
    assert agent.state.toolset.expanded == {"group_a": True}
    run(agent.accept([{"tool_use_id": "q2", "content": "blue", "augmentation": {"hide": ["alpha"]}}]))
    run(agent.continue_turn())
    body_ok(script)
    assert "alpha" not in names(script.requests[1]) and "beta" in names(script.requests[1])
    assert every_call_answered(agent.state)
