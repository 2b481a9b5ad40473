"""The permission callback as the SDK calls it (no CLI): what each answer sends back, and that it never fails open."""

import asyncio

import pytest

pytest.importorskip("claude_agent_sdk")

import claude_agent_sdk as sdk
from claude_agent_sdk.types import PermissionRuleValue

import notebook_tools as nt
from notebook_tools.prompts import PromptBroker
from tests.support.claude_code_standin import Person, bounded

BASH = {"command": "make test", "description": "run the tests"}
SUGGESTED = [
    sdk.PermissionUpdate(
        type="addRules",
        rules=[PermissionRuleValue(tool_name="Bash", rule_content="make test *")],
        behavior="allow",
        destination="localSettings",
    )
]


def context(tool_use_id, suggestions=()):
    return sdk.ToolPermissionContext(
        suggestions=list(suggestions), tool_use_id=tool_use_id, display_name="Bash"
    )


async def ask(claude, tool_use_id, tool_input=BASH, suggestions=SUGGESTED):
    return await claude._can_use_tool("Bash", dict(tool_input), context(tool_use_id, suggestions))


def run(answer_with, *, broker=None, **kwargs):
    """Ask once through a ClaudeCode's callback while `answer_with(person, card)` answers."""

    async def main():
        claude = nt.ClaudeCode(cwd=".", broker=broker or PromptBroker(), **kwargs)
        person = Person(claude.broker)
        asked = asyncio.ensure_future(ask(claude, "toolu_1"))
        card = await person.next_card()
        answer_with(person, card)
        return await bounded(asked, "the callback's answer"), card, claude

    return asyncio.run(main())


def test_always_sends_the_clis_suggestions_back_kept_for_the_session_unless_asked_otherwise():
    result, card, _ = run(lambda p, c: p.decide(c, approved=True, remember="scope"))
    assert card.scope == "allow Bash(make test *) (this session)"
    assert [(u.type, u.destination) for u in result.updated_permissions] == [("addRules", "session")]
    result, card, _ = run(
        lambda p, c: p.decide(c, approved=True, remember="scope"), remember_in="as_suggested"
    )
    assert result.updated_permissions == SUGGESTED and "localSettings" in card.scope


def test_remembering_the_tool_adds_a_session_rule_for_every_call_of_it():
    result, _, _ = run(lambda p, c: p.decide(c, approved=True, remember="tool"))
    [update] = result.updated_permissions
    assert (update.type, update.behavior, update.destination) == ("addRules", "allow", "session")
    assert [(r.tool_name, r.rule_content) for r in update.rules] == [("Bash", None)]


def test_remembered_arguments_are_allowed_without_a_card_the_next_time():
    async def main():
        claude = nt.ClaudeCode(cwd=".", broker=PromptBroker())
        person = Person(claude.broker)
        asked = asyncio.ensure_future(ask(claude, "toolu_1"))
        person.decide(await person.next_card(), approved=True, remember="arguments")
        await bounded(asked)
        again = await bounded(ask(claude, "toolu_2"))  # no card: nobody answers it
        return again, person

    again, person = asyncio.run(main())
    assert again.behavior == "allow" and len(person.seen) == 1


def test_an_edit_that_does_not_fit_the_tool_is_refused_and_the_card_stays_open():
    def answer(person, card):
        refused = person.broker.answer(
            card.tool_use_id, {"value": {"approved": True, "edited_input": {"description": "no command"}}}
        )
        assert "command" in refused and person.broker.prompts[card.tool_use_id].status == "pending"
        person.decide(card, approved=True, edited_input={**BASH, "command": "make lint"})

    result, _, _ = run(answer)
    assert result.updated_input == {**BASH, "command": "make lint"}


def test_nobody_to_ask_denies():
    async def main():
        claude = nt.ClaudeCode(cwd=".", broker=PromptBroker(on_no_frontend="fail"))
        return await bounded(ask(claude, "toolu_1")), claude

    result, claude = asyncio.run(main())
    assert (
        result.behavior == "deny" and "not run" not in result.message and result.message.startswith("Denied")
    )
    assert claude.broker.prompts["toolu_1"].status == "failed"


def test_an_ask_without_questions_denies():
    async def main():
        claude = nt.ClaudeCode(cwd=".", broker=PromptBroker())
        ctx = context("toolu_q")
        bad = await claude._can_use_tool("AskUserQuestion", {"questions": [{"header": "no question"}]}, ctx)
        none = await claude._can_use_tool("AskUserQuestion", {}, ctx)
        return bad, none

    bad, none = asyncio.run(main())
    assert (bad.behavior, none.behavior) == ("deny", "deny")
