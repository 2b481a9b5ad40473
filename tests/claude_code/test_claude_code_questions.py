"""AskUserQuestion from the real Claude Code CLI: its questions are select cards, the answers reach the model."""

import asyncio

import pytest

pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.prompts import PromptBroker
from tests.support.claude_code_standin import Person, bounded, calls, standin

QUESTIONS = {
    "questions": [
        {
            "question": "Which color?",
            "header": "Color",
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            "multiSelect": False,
        },
        {
            "question": "Which sizes?",
            "header": "Sizes",
            "options": [
                {"label": "S", "description": "small"},
                {"label": "M", "description": "medium"},
                {"label": "L", "description": "large"},
            ],
            "multiSelect": True,
        },
    ]
}


def ask_turn():
    return calls(t.tool_use("AskUserQuestion", QUESTIONS))


def test_several_questions_are_open_at_once_and_every_answer_reaches_the_model(tmp_path):
    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = asyncio.ensure_future(claude.send("Ask me"))
            color, sizes = await person.next_card(), await person.next_card()  # both open before any answer
            assert (color.kind, color.input["options"], color.input["multiple"]) == (
                "select",
                ["Red", "Blue"],
                False,
            )
            assert sizes.input["multiple"] and sizes.description == "Sizes"
            assert "S: small" in sizes.input["prompt"]  # the option's description is shown with it
            person.broker.answer(sizes.tool_use_id, {"value": ["S", "L"]}, frontend="test-view")
            person.broker.answer(color.tool_use_id, {"value": ["Blue"]}, frontend="test-view")
            messages = await bounded(turn)
        return messages

    with standin(ask_turn(), t.reply("Blue it is.")) as server:
        messages = asyncio.run(main(server))
        [call_id] = [b.id for m in messages for b in getattr(m, "content", []) or [] if hasattr(b, "input")]
        said, is_error = server.said_to_model(call_id)
    assert not is_error
    assert '"Which color?"="Blue"' in said and '"Which sizes?"="S, L"' in said


def test_a_skipped_question_tells_the_model_it_went_unanswered(tmp_path):
    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = asyncio.ensure_future(claude.send("Ask me"))
            color, sizes = await person.next_card(), await person.next_card()
            person.broker.answer(color.tool_use_id, {"value": ["Red"]}, frontend="test-view")
            person.broker.answer(
                sizes.tool_use_id, {"skip": True, "reason": "pick for me"}, frontend="test-view"
            )
            return await bounded(turn)

    with standin(ask_turn(), t.reply("I will choose.")) as server:
        messages = asyncio.run(main(server))
        [call_id] = [b.id for m in messages for b in getattr(m, "content", []) or [] if hasattr(b, "input")]
        said, is_error = server.said_to_model(call_id)
    assert is_error and "did not answer" in said and "pick for me" in said
