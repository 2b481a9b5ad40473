"""The real Claude Code CLI, offline against the stand-in: every tool call it asks for is our approval card.

Each test starts the CLI from the `claude-agent-sdk` wheel (tests/support/claude_code_standin.py says
how it runs without a network), scripts real tool calls (Write, Bash), and answers the cards through
the broker as the widget does. What reaches the disk and what the model is told are the checks.
"""

import asyncio

import pytest

pytest.importorskip("claude_agent_sdk")

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.prompts import PromptBroker
from tests.support.claude_code_standin import Person, bounded, calls, standin
from tests.support.readiness import CEILING

DONE = t.reply("Done.")


def tool_ids(messages):
    return [
        b.id for m in messages for b in getattr(m, "content", []) or [] if type(b).__name__ == "ToolUseBlock"
    ]


async def _turn(claude, prompt):
    return asyncio.ensure_future(claude.send(prompt))


def test_a_denied_write_leaves_the_disk_untouched_and_the_model_reads_why(tmp_path):
    target = tmp_path / "notes.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "secret plans\n"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "Write notes.txt")
            card = await person.next_card()
            assert (card.kind, card.name, card.input) == ("approval", "Write", write["input"])
            # what will be written, as a diff from nothing
            assert card.preview is not None and "+secret plans" in card.preview.text.splitlines()
            person.decide(card, approved=False, reason="Not in this folder, please.")
            messages = await bounded(turn)
        return card, messages

    with standin(calls(write), DONE) as server:
        card, messages = asyncio.run(main(server))
        [call_id] = tool_ids(messages)
        assert card.tool_use_id == call_id  # the card is the CLI's own tool call
        said, is_error = server.said_to_model(call_id)
    assert not target.exists()
    assert is_error and "Not in this folder, please." in said
    assert type(messages[-1]).__name__ == "ResultMessage" and not messages[-1].is_error


def test_an_approved_write_writes(tmp_path):
    target = tmp_path / "hello.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "hello\n"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "Write hello.txt")
            card = await person.next_card()
            assert not target.exists()  # nothing ran while the card was open
            person.decide(card, approved=True)
            return await bounded(turn)

    with standin(calls(write), DONE) as server:
        messages = asyncio.run(main(server))
        said, is_error = server.said_to_model(tool_ids(messages)[0])
    assert target.read_text() == "hello\n"
    assert not is_error and "hello.txt" in said


def test_an_edited_bash_command_runs_instead_of_the_models(tmp_path):
    bash = t.tool_use("Bash", {"command": "touch from_model.txt", "description": "make a file"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "Make a file")
            card = await person.next_card()
            # exactly what will run
            assert card.preview == nt.ApprovalPreview(kind="command", text="$ touch from_model.txt")
            edited = {**card.input, "command": "touch from_person.txt"}
            person.decide(card, approved=True, edited_input=edited)
            return await bounded(turn)

    with standin(calls(bash), DONE) as server:
        asyncio.run(main(server))
    assert (tmp_path / "from_person.txt").exists()
    assert not (tmp_path / "from_model.txt").exists()


def test_allow_always_is_not_asked_again_for_calls_like_it(tmp_path):
    # For `mkdir one` the CLI 2.1.332 suggests the rule `Bash(mkdir one *)`, access to the folder and
    # the acceptEdits mode; "always" sends them back, and it does not ask for `mkdir two`. (A command
    # writing through a redirect, `echo hi > two.txt`, it asks again whatever was added.)
    first = t.tool_use("Bash", {"command": "mkdir one", "description": "first"})
    second = t.tool_use("Bash", {"command": "mkdir two", "description": "second"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "A folder")
            card = await person.next_card()
            person.decide(card, approved=True, remember="scope")
            await bounded(turn)
            turn = await _turn(claude, "Another")
            asked = asyncio.ensure_future(person.next_card())
            await bounded(asyncio.wait([turn, asked], return_when=asyncio.FIRST_COMPLETED))
            if asked.done():  # asked again: deny it (so the turn ends) and fail below
                person.decide(asked.result(), approved=False, reason="asked again")
            asked.cancel()
            await bounded(turn)
        return card, claude

    with standin(calls(first), DONE, calls(second), DONE) as server:
        card, claude = asyncio.run(main(server))
    assert "Bash(mkdir one *)" in card.scope and "acceptEdits" in card.scope  # what "always" covers
    assert [name for name, *_ in claude.decisions] == ["Bash"]  # the second call never asked
    assert (tmp_path / "one").is_dir() and (tmp_path / "two").is_dir()
    assert not (tmp_path / ".claude").exists()  # kept for the session, not written into the project


class BrokenBroker(PromptBroker):
    """A broker whose front-end path fails while a card waits (a view crashed, a bug of ours)."""

    async def collect(self, pending, *, kind=None):
        self.open(pending, kind=kind)
        raise RuntimeError("the view went away mid-answer")


def test_an_error_while_answering_denies_and_the_tool_never_runs(tmp_path):
    target = tmp_path / "never.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"})

    async def main(server):
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=BrokenBroker()) as claude:
            return await bounded(claude.send("Write never.txt")), claude

    with standin(calls(write), DONE) as server:
        messages, claude = asyncio.run(main(server))
        said, is_error = server.said_to_model(tool_ids(messages)[0])
    assert not target.exists()
    assert is_error and "the view went away mid-answer" in said and "was not run" in said
    [(name, _, result)] = claude.decisions
    assert (name, result.behavior) == ("Write", "deny")


def test_a_card_nobody_answers_in_time_denies(tmp_path):
    target = tmp_path / "late.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        options = server.options()
        async with nt.ClaudeCode(
            cwd=tmp_path, options=options, broker=broker, approval_timeout=0.5
        ) as claude:
            turn = await _turn(claude, "Write late.txt")
            card = await person.next_card()
            messages = await bounded(turn)  # ends once the card timed out
        return card, messages, broker

    with standin(calls(write), DONE) as server:
        card, messages, broker = asyncio.run(main(server))
        said, is_error = server.said_to_model(tool_ids(messages)[0])
    assert not target.exists()
    assert is_error and "did not answer within 0.5 seconds" in said
    assert broker.prompts[card.tool_use_id].status == "timed_out"


def test_stop_while_a_card_is_open_denies_and_ends_the_turn(tmp_path):
    target = tmp_path / "stopped.txt"
    write = t.tool_use("Write", {"file_path": str(target), "content": "x\n"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "Write stopped.txt")
            card = await person.next_card()
            await claude.interrupt()
            messages = await bounded(turn)
            refused = broker.answer(card.tool_use_id, {"value": {"approved": True}}, frontend="test-view")
        return card, messages, broker, claude, refused

    with standin(calls(write)) as server:  # the turn ends at the deny: no further request
        card, messages, broker, claude, refused = asyncio.run(main(server))
    assert not target.exists()
    assert broker.prompts[card.tool_use_id].status == "cancelled"
    assert refused  # a late "approve" on the stopped card is refused, the call stays denied
    [(name, _, result)] = claude.decisions
    assert (name, result.behavior, result.interrupt) == ("Write", "deny", True)
    assert type(messages[-1]).__name__ == "ResultMessage"


def test_an_edit_card_shows_the_diff_and_the_approved_edit_is_made(tmp_path):
    source = tmp_path / "settings.py"
    source.write_text("DEBUG = True\nPORT = 8000\n")
    read = t.tool_use("Read", {"file_path": str(source)})  # the CLI edits only a file it has read
    edit = t.tool_use(
        "Edit", {"file_path": str(source), "old_string": "DEBUG = True", "new_string": "DEBUG = False"}
    )

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "Turn debugging off")
            card = await person.next_card()  # reading in the project asks nothing: the first card is the edit
            assert card.name == "Edit"
            assert source.read_text() == "DEBUG = True\nPORT = 8000\n"
            person.decide(card, approved=True)
            await bounded(turn)
        return card, claude

    with standin(calls(read), calls(edit), DONE) as server:
        card, claude = asyncio.run(main(server))
    assert card.preview is not None and card.preview.kind == "diff"
    lines = card.preview.text.splitlines()
    assert "-DEBUG = True" in lines and "+DEBUG = False" in lines and " PORT = 8000" in lines
    assert source.read_text() == "DEBUG = False\nPORT = 8000\n"
    assert [name for name, *_ in claude.decisions] == ["Edit"]


def test_two_calls_in_one_turn_are_two_cards_each_decided_on_its_own(tmp_path):
    # (The CLI 2.1.332 asks for them one after the other: the second card opens once the first is answered.)
    first = t.tool_use("Write", {"file_path": str(tmp_path / "a.txt"), "content": "a\n"})
    second = t.tool_use("Write", {"file_path": str(tmp_path / "b.txt"), "content": "b\n"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            turn = await _turn(claude, "Two files")
            a = await person.next_card()
            person.decide(a, approved=True)
            b = await person.next_card()
            person.decide(b, approved=False, reason="Only a.txt.")
            messages = await bounded(turn)
        return a, b, messages

    with standin(calls(first, second), DONE) as server:
        a, b, messages = asyncio.run(main(server))
        ids = tool_ids(messages)
        said_b, b_failed = server.said_to_model(ids[1])
    assert [a.tool_use_id, b.tool_use_id] == ids
    assert (a.input["file_path"], b.input["file_path"]) == (
        first["input"]["file_path"],
        second["input"]["file_path"],
    )
    assert (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()
    assert b_failed and "Only a.txt." in said_b


def test_approve_all_allows_without_a_card_and_auto_deny_denies_without_one(tmp_path):
    bash = t.tool_use("Bash", {"command": "touch allowed.txt", "description": "make a file"})
    write = t.tool_use("Write", {"file_path": str(tmp_path / "denied.txt"), "content": "no\n"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        options = server.options()
        async with nt.ClaudeCode(
            cwd=tmp_path, options=options, broker=broker, approval_mode="approve_all"
        ) as claude:
            first = await bounded(claude.send("Make a file"))
            with pytest.raises(nt.ConfigurationError, match="approval_mode must be one of"):
                claude.approval_mode = "yes please"  # type: ignore[assignment]
            assert claude.approval_mode == "approve_all"  # refused: unchanged
            claude.approval_mode = "auto_deny"  # changed between turns, as a person would
            second = await bounded(claude.send("Write denied.txt"))
        return person, claude, first, second

    with standin(calls(bash), DONE, calls(write), DONE) as server:
        person, claude, _, second = asyncio.run(main(server))
        said, is_error = server.said_to_model(tool_ids(second)[0])
    assert person.seen == []  # neither mode opened a card
    assert (tmp_path / "allowed.txt").exists() and not (tmp_path / "denied.txt").exists()
    assert [(name, r.behavior) for name, _, r in claude.decisions] == [("Bash", "allow"), ("Write", "deny")]
    assert is_error and "approval_mode 'auto_deny'" in said and "Write did not run" in said


def test_the_clis_accept_edits_mode_writes_unasked_while_bash_still_asks(tmp_path):
    write = t.tool_use("Write", {"file_path": str(tmp_path / "edited.txt"), "content": "ok\n"})
    # (acceptEdits also lets filesystem commands such as touch and mkdir run unasked: code is asked)
    bash = t.tool_use("Bash", {"command": "python3 -c \"open('ran.txt', 'w')\"", "description": "run"})

    async def main(server):
        broker = PromptBroker()
        person = Person(broker)
        async with nt.ClaudeCode(cwd=tmp_path, options=server.options(), broker=broker) as claude:
            with pytest.raises(nt.ConfigurationError, match="permission mode must be one of"):
                await claude.set_permission_mode("yolo")
            assert claude.options.permission_mode is None  # refused: unchanged
            await claude.set_permission_mode("acceptEdits")
            turn = await _turn(claude, "Write edited.txt, then make a file")
            asked = asyncio.ensure_future(person.next_card())
            await asyncio.wait([turn, asked], timeout=CEILING, return_when=asyncio.FIRST_COMPLETED)
            assert asked.done(), "the Bash call did not ask"
            card = asked.result()  # the Write did not ask: the first card is the Bash
            assert card.name == "Bash" and (tmp_path / "edited.txt").read_text() == "ok\n"
            person.decide(card, approved=True)
            await bounded(turn)
        return claude

    with standin(calls(write), calls(bash), DONE) as server:
        claude = asyncio.run(main(server))
    assert claude.options.permission_mode == "acceptEdits"  # a reconnect starts the CLI in it again
    assert (tmp_path / "ran.txt").exists()
    assert [name for name, *_ in claude.decisions] == ["Bash"]
