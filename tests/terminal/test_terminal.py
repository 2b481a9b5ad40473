"""The terminal front end: a real pseudo-terminal (pexpect), and TerminalChat driven in-process.

In-process tests feed keystrokes through prompt_toolkit's pipe input (or plain lines) and read a
plain rich console; they check the action events on the agent's bus and the API requests.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat, build_agent
from notebook_tools.terminal._commands import coerce_arg, parse_slash
from notebook_tools.terminal._menu import CtrlC, EndOfInput, Skip, menu, parse_choice
from notebook_tools.terminal._scripted import SCRIPTED_CHAT_NOTICE, scripted_transport
from tests.support.readiness import CEILING

PRICES = "product,price\napples,1.20\npears,1.50\nplums,2.10\n"
ROOT = Path(__file__).resolve().parents[2]


def plain_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, color_system=None, width=200, highlight=False, emoji=False), out


async def until(out: io.StringIO, text: str, start: int = 0, timeout: float = CEILING) -> int:
    """Wait until `text` is on the screen after `start`; returns where it ends."""
    for _ in range(int(timeout / 0.01)):
        found = out.getvalue().find(text, start)
        if found >= 0:
            return found + len(text)
        await asyncio.sleep(0.01)
    raise AssertionError(f"{text!r} never showed; the screen:\n{out.getvalue()[start:]}")


async def converse(chat: TerminalChat, out: io.StringIO, steps: list[tuple[str, Any]]) -> int:
    """Run the chat while a person answers: for each (text on screen, keys or action), in order."""
    pipe = chat.reader.input  # type: ignore[attr-defined]

    async def person() -> None:
        seen = 0
        for expected, action in steps:
            seen = await until(out, expected, seen)
            await asyncio.sleep(0.02)
            if callable(action):
                action()
            else:
                pipe.send_text(action)

    code, _ = await asyncio.wait_for(asyncio.gather(chat.run(), person()), CEILING)
    return int(code)


def answers(recorder: nt.EventRecorder) -> list[Any]:
    events = recorder.of_type("prompt_answer")
    assert all(e.frontend == "terminal" for e in events)
    return [e.answer for e in events]


def results_in(body: dict[str, Any]) -> list[Any]:
    return [b.get("content") for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


# -- a real pseudo-terminal ----------------------------------------------------------------------


def test_chat_in_a_real_terminal(tmp_path: Path) -> None:
    (tmp_path / "prices.csv").write_text(PRICES)
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1", PYTHONPATH=str(ROOT))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "notebook_tools", "chat"],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=CEILING,
    )
    try:
        child.expect("Model: scripted")
        child.expect("you>")
        child.send("clean the sales data\r")
        child.expect("Drop the 4 duplicate rows")  # a confirm: y, then Enter
        child.expect(r"\(y/n")
        child.send("y")
        child.send("\r")
        child.expect("→ Drop")
        child.expect("Name of the cleaned table")  # a text, pre-filled: Ctrl+U clears it
        child.expect("sales_clean")
        child.send("\x15sales_2024\r")
        child.expect("→ sales_2024")
        child.expect("missing prices")  # a select: by number
        child.expect("mean of the product")
        child.send("2\r")
        child.expect("→ mean of the product")
        child.expect("clean_table → sales_2024: 48 rows")
        child.expect("Pick the reference price list")  # a file: by path
        child.expect("path >")
        child.send("prices.csv\r")
        child.expect("→ prices.csv")
        child.expect("Run write_csv")  # an approval: edit, then approve
        child.expect(r"\(a/d/e/r/t")
        child.send("e\r")
        child.expect(r"table \(string\) >")
        child.send("\r")
        child.expect(r"path \(string\) >")
        child.send("\x15final.csv\r")
        child.expect("edited arguments")
        child.expect("Approve with these arguments")
        child.send("a\r")
        child.expect("Approved with edits")
        child.expect("wrote 48 rows of sales_2024 to final.csv")
        child.expect("you>")
        child.send("profile the table\r")  # a slow tool, stopped with Ctrl+C
        child.expect("⚙ profile_table")
        child.sendcontrol("c")
        child.expect("Interrupted by the user")
        child.expect("stopped")
        child.expect("you>")
        child.send("thanks\r")  # the next message carries on
        child.expect("You stopped me before that finished")
        child.expect("you>")
        child.send("/exit\r")
        child.expect("bye")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    written = (tmp_path / "final.csv").read_text().splitlines()
    assert written[0] == "region,product,qty,price" and len(written) == 49


# -- TerminalChat in-process ----------------------------------------------------------------------


def scripted_chat(**kwargs: Any) -> tuple[nt.Agent, t.ScriptedTransport, nt.EventRecorder]:
    script = scripted_transport(event_delay=0)
    agent, _ = build_agent(script=script, **kwargs)
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    return agent, script, recorder


def test_keystrokes_answer_every_kind_and_the_requests_follow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prices.csv").write_text(PRICES)
    agent, script, recorder = scripted_chat()
    console, out = plain_console()

    async def main() -> int:
        with create_pipe_input() as pipe:
            chat = TerminalChat(agent, console=console, input=pipe, notice=SCRIPTED_CHAT_NOTICE)
            return await converse(
                chat,
                out,
                [
                    ("/help for commands", "clean the sales data\r"),
                    ("Drop the 4 duplicate rows", "\x1b[C\r"),  # the arrow moves to Keep
                    ("Name of the cleaned table", "\x15tidy\r"),
                    ("missing prices", "3\r"),
                    ("Pick the reference price list", "nothere.csv\r"),  # refused by the broker
                    ("is not a file", "prices.csv\r"),
                    ("Run write_csv", "t\r"),  # approve, and remember every write_csv call
                    ("The cleaned table is ready", "/exit\r"),
                ],
            )

    assert asyncio.run(main()) == 0
    assert answers(recorder) == [
        {"value": "no"},
        {"value": "tidy"},
        {"value": ["drop those rows"]},
        {"value": {"paths": ["nothere.csv"]}},
        {"value": {"paths": ["prices.csv"]}},
        {"value": {"approved": True, "remember": "tool"}},
    ]
    assert [r.tool_use_id for r in recorder.of_type("answer_refused")] == [
        recorder.of_type("prompt_answer")[3].tool_use_id
    ]
    screen = out.getvalue()
    assert "Model: scripted" in screen and "→ Keep" in screen and "is not a file (try again)" in screen
    assert [e.text for e in recorder.of_type("user_input")] == ["clean the sales data"]
    assert results_in(script.requests[2]) == ["no", "tidy", "drop those rows"]
    clean = next(b for b in script.requests[3]["messages"][-2]["content"] if b.get("name") == "clean_table")
    assert clean["input"] == {
        "table": "sales",
        "new_name": "tidy",
        "drop_duplicates": False,
        "missing_prices": "drop",
    }
    assert "prices.csv (4 lines)" in json.dumps(results_in(script.requests[3]))
    assert results_in(script.requests[4]) == ["wrote 47 rows of tidy to tidy.csv"]
    assert agent.state.approvals[0].tool == "write_csv" and agent.state.approvals[0].input is None
    assert (tmp_path / "tidy.csv").read_text().count("\n") == 48  # 47 rows and the header
    assert script.refused == []


def test_plain_lines_answer_every_kind_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prices.csv").write_text(PRICES)
    agent, script, recorder = scripted_chat()
    console, out = plain_console()
    lines = [
        "clean the sales data",
        "yes please",  # not an answer: asked again
        "y",
        "/skip",  # the text prompt is skipped
        "1",
        "prices.csv",
        "e",  # edit the approval's arguments, then deny with a reason
        "",
        "out/sales.csv",
        "d",
        "not now",
        "/exit",
    ]
    chat = TerminalChat(agent, console=console, input=lines)
    assert asyncio.run(asyncio.wait_for(chat.run(), CEILING)) == 0
    assert answers(recorder) == [
        {"value": "yes"},
        {"skip": True},
        {"value": ["median of the product"]},
        {"value": {"paths": ["prices.csv"]}},
        {"value": {"approved": False, "reason": "not now", "remember": None}},
    ]
    screen = out.getvalue()
    assert "you> clean the sales data" in screen  # lines read are echoed
    assert "! type y/n" in screen
    assert "I did not write the file: The user denied this call. Reason: not now" in screen
    assert not (tmp_path / "out").exists()
    assert script.refused == []


def test_a_refused_answer_is_shown_and_asked_again() -> None:
    @nt.tool(executor="frontend", output_schema={"type": "object", "required": ["hex"]})
    def pick_color(purpose: str) -> str:
        """Ask the user for a colour.

        Args:
            purpose: What the colour is for.
        """

    script = t.ScriptedTransport(
        t.turn(t.tool_use("pick_color", {"purpose": "the bars"})),
        lambda body: t.reply(f"Using {results_in(body)[0]}."),
    )
    agent = nt.Agent(client=script.client(), frontend_tools=[pick_color])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    console, out = plain_console()
    lines = ["colour the bars", "blue", "blue", '{"hex": "#1f77b4"}', "/exit"]
    chat = TerminalChat(agent, console=console, input=lines)
    assert asyncio.run(asyncio.wait_for(chat.run(), CEILING)) == 0
    assert answers(recorder) == [{"value": "blue"}, {"value": "blue"}, {"value": '{"hex": "#1f77b4"}'}]
    assert len(recorder.of_type("answer_refused")) == 1  # the broker reports a repeated answer once
    screen = out.getvalue()
    assert screen.count("(try again)") == 2  # ...and the terminal shows it both times
    assert 'answer as: {"type": "object", "required": ["hex"]}' in screen
    assert 'Using {"hex": "#1f77b4"}.' in screen
    assert results_in(script.requests[-1]) == ['{"hex": "#1f77b4"}']


def test_tools_and_tool_run_a_tool_by_hand() -> None:
    agent, script, recorder = scripted_chat()
    console, out = plain_console()
    lines = [
        "/tools",
        "/tool count_rows --table sales",
        "/count_rows",
        "sales",
        "/describe_table",
        "/x y",
        "hi",
        "/exit",
    ]
    chat = TerminalChat(agent, console=console, input=lines)
    assert asyncio.run(asyncio.wait_for(chat.run(), CEILING)) == 0
    screen = out.getvalue()
    assert "count_rows" in screen and "by hand" in screen
    assert screen.count("count_rows → sales: 52 rows") == 2  # the second asked for its argument
    assert "'describe_table' cannot be run by hand" in screen
    assert 'expected --name before "y"' in screen
    invoked = recorder.of_type("manual_tool_invoke")
    assert [(e.name, e.input) for e in invoked] == [("count_rows", {"table": "sales"})] * 2 + [
        ("describe_table", {})
    ]
    assert all(e.request_id.startswith("terminal-") for e in invoked)
    runs = recorder.of_type("tool_completed")
    assert [r.name for r in runs] == ["count_rows", "count_rows"]
    first = script.requests[0]["messages"][0]["content"]
    assert first[0]["text"].startswith("[The user ran the tool `count_rows` by hand")
    assert first[-1] == {"type": "text", "text": "hi"}


def test_ctrl_c_at_a_prompt_stops_the_turn_and_the_next_message_carries_on() -> None:
    agent, script, recorder = scripted_chat()
    console, out = plain_console()

    async def main() -> int:
        with create_pipe_input() as pipe:
            chat = TerminalChat(agent, console=console, input=pipe)
            return await converse(
                chat,
                out,
                [
                    ("/help for commands", "clean the sales data\r"),
                    ("Drop the 4 duplicate rows", "\x03"),
                    ("your next message carries on", "oops\x03thanks\r"),  # Ctrl+C clears the line
                    ("You stopped me before that finished", "\x04"),  # Ctrl+D leaves
                ],
            )

    assert asyncio.run(main()) == 0
    assert recorder.of_type("prompt_answer") == []
    assert [e.text for e in recorder.of_type("user_input")] == ["clean the sales data", "thanks"]
    assert len(recorder.of_type("interrupt")) == 1
    assert {p.status for p in agent_prompts(recorder)} == {"cancelled"}
    last = script.requests[-1]["messages"][-1]["content"]
    assert [b.get("content") for b in last[:3]] == ["Interrupted by the user before answering."] * 3
    assert last[-1] == {"type": "text", "text": "thanks"}
    assert "bye" in out.getvalue()


def test_sigint_while_a_tool_runs_stops_it() -> None:
    # Python's own handler to start from, whatever an earlier test in this process left (a library
    # that started a kernel in process sets SIGINT to SIG_IGN): the chat must give back what it found.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _sigint_while_a_tool_runs()
    finally:
        signal.signal(signal.SIGINT, previous)


def _sigint_while_a_tool_runs() -> None:
    agent, _, recorder = scripted_chat()
    console, out = plain_console()

    async def main() -> int:
        with create_pipe_input() as pipe:
            chat = TerminalChat(agent, console=console, input=pipe)
            return await converse(
                chat,
                out,
                [
                    ("/help for commands", "profile the table\r"),
                    ("⚙ profile_table", lambda: os.kill(os.getpid(), signal.SIGINT)),
                    ("your next message carries on", "hello\r"),
                    ("You stopped me before that finished", "/exit\r"),
                ],
            )

    assert asyncio.run(main()) == 0
    assert recorder.of_type("tool_error")[0].error == "Interrupted by the user before this call finished."
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_leaving_with_open_prompts_keeps_the_pause_and_resume_asks_again(tmp_path: Path) -> None:
    store = nt.SQLiteStore(tmp_path / "sessions.sqlite")
    agent, _, _ = scripted_chat(store=store)
    console, out = plain_console()
    first = TerminalChat(agent, console=console, input=["clean the sales data", "y"])
    assert asyncio.run(asyncio.wait_for(first.run(), CEILING)) == 0  # the input ends at the second prompt
    assert "stays paused in its store: resume it with --resume" in out.getvalue()
    assert agent.state.status == "awaiting_frontend_tools"

    again, script, recorder = scripted_chat(store=store)
    again.load(agent.agent_uuid)
    console, out = plain_console()
    lines = ["tidy", "2", "/skip", "/exit"]
    assert (
        asyncio.run(asyncio.wait_for(TerminalChat(again, console=console, input=lines).run(), CEILING)) == 0
    )
    screen = out.getvalue()
    assert "you> clean the sales data" in screen  # the history is shown again
    assert "Drop the 4 duplicate rows" not in screen.split("/help for commands")[1]  # answered before
    assert answers(recorder) == [{"value": "tidy"}, {"value": ["mean of the product"]}, {"skip": True}]
    assert results_in(script.requests[0]) == ["yes", "tidy", "mean of the product"]


def test_a_prompt_that_times_out_while_asked_stops_being_asked() -> None:
    @nt.tool(executor="frontend", timeout=0.5)
    def ask_unit(column: str) -> str:
        """Ask the user which unit a column is in.

        Args:
            column: The column.
        """

    script = t.ScriptedTransport(
        t.turn(t.tool_use("ask_unit", {"column": "price"})),
        lambda body: t.reply("No answer; I'll assume euros."),
    )
    agent = nt.Agent(client=script.client(), frontend_tools=[ask_unit])
    console, out = plain_console()

    async def main() -> int:
        with create_pipe_input() as pipe:
            chat = TerminalChat(agent, console=console, input=pipe)
            return await converse(
                chat,
                out,
                [("/help for commands", "which unit?\r"), ("I'll assume euros", "/exit\r")],
            )

    assert asyncio.run(main()) == 0
    assert "→ timed out" in out.getvalue()
    assert "ask_unit · answer within 1 s (until " in out.getvalue()  # the card says when it ends
    assert "time is up" not in out.getvalue()  # alone in its turn, it closed at once: nothing still counts
    assert results_in(script.requests[-1]) == ["The user did not answer within 0.5 seconds."]


def test_approval_arguments_edited_as_json_are_checked_against_the_schema() -> None:
    @nt.tool(needs_approval=True)
    def tag_rows(tags: list[str], limit: int = 10) -> str:
        """Tag rows.

        Args:
            tags: Tags to add.
            limit: At most this many rows.
        """
        return f"tagged {limit} rows with {', '.join(tags)}"

    script = t.ScriptedTransport(
        t.turn(t.tool_use("tag_rows", {"tags": ["x"]})),
        lambda body: t.reply(str(results_in(body)[0])),
    )
    agent = nt.Agent(client=script.client(), tools=[tag_rows])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    console, out = plain_console()
    lines = [
        "tag them",
        "e",
        '{"tags": "a"}',
        ".",
        "e",
        '{"tags": ["a", "b"], "limit": 2}',
        ".",
        "a",
        "/exit",
    ]
    assert (
        asyncio.run(asyncio.wait_for(TerminalChat(agent, console=console, input=lines).run(), CEILING)) == 0
    )
    assert answers(recorder) == [
        {"value": {"approved": True, "edited_input": {"tags": ["a", "b"], "limit": 2}, "remember": None}}
    ]
    screen = out.getvalue()
    assert "these arguments do not fit the tool" in screen  # the first edit, shown before sending
    assert "tagged 2 rows with a, b" in screen
    assert "it ran with" in str(results_in(script.requests[-1])[0])


def agent_prompts(recorder: nt.EventRecorder) -> list[Any]:
    last: dict[str, Any] = {}
    for event in recorder.of_type("prompt_changed"):
        last[event.prompt.tool_use_id] = event.prompt
    return list(last.values())


# -- pieces ---------------------------------------------------------------------------------------


def test_slash_commands_parse_as_in_the_widget() -> None:
    assert parse_slash("hello") is None
    assert parse_slash("/tool count_rows --table sales").args == {"table": "sales"}  # type: ignore[union-attr]
    command = parse_slash('/count_rows --table "my table" --dry')
    assert command is not None and (command.name, command.args) == (
        "count_rows",
        {"table": "my table", "dry": "true"},
    )
    assert parse_slash("/tools now").message == "/tools takes no arguments"  # type: ignore[union-attr]
    assert parse_slash("/quit").kind == "exit"  # type: ignore[union-attr]
    assert coerce_arg("3", {"type": "integer"}) == 3 and coerce_arg("no", {"type": "boolean"}) is False
    with pytest.raises(ValueError, match="not a whole number"):
        coerce_arg("3.5", {"type": "integer"})


def test_choices_typed_as_text() -> None:
    options = ["a", "b", "c"]
    assert parse_choice("2", options) == [1]
    assert parse_choice("1, 3", options, multiple=True) == [0, 2]
    assert parse_choice("B", options) == [1]
    assert parse_choice("n", ["Drop", "Keep"], hotkeys={"y": 0, "n": 1}) == [1]
    for bad, why in (("1,3", "choose one"), ("9", "not an option"), ("maybe", "type a number")):
        with pytest.raises(ValueError, match=why):
            parse_choice(bad, options)


def test_menu_keys() -> None:
    async def pick(keys: str, **kwargs: Any) -> list[int]:
        with create_pipe_input() as pipe:
            pipe.send_text(keys)
            return await menu(["a", "b", "c"], input=pipe, output=DummyOutput(), **kwargs)

    async def main() -> None:
        assert await pick("\x1b[B\x1b[B\r") == [2]  # arrows, then Enter
        assert await pick("3\r") == [2]  # a number jumps to its option
        assert await pick(" \x1b[B\x1b[B \r", multiple=True) == [0, 2]  # Space toggles
        assert await pick("3,1\r", multiple=True) == [0, 2]  # numbers typed with commas
        assert await pick("9\r2\r") == [1]  # a wrong number is refused in the menu, then 2
        for keys, error in (("\x1b", Skip), ("\x03", CtrlC), ("\x04", EndOfInput)):
            with pytest.raises(error):
                await pick(keys)

    asyncio.run(asyncio.wait_for(main(), CEILING))


def test_piped_stdin_reads_lines_and_leaves_at_the_end(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "notebook_tools", "chat"],
        input="hello\n",
        capture_output=True,
        text=True,
        timeout=CEILING,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert done.stdout.startswith("[Model: scripted (no ANTHROPIC_API_KEY set)")
    assert "you> hello" in done.stdout and "I am the scripted demo model" in done.stdout
    assert "\x1b[" not in done.stdout  # not a terminal: plain text
    assert done.stdout.rstrip().endswith("[bye]")


def test_the_core_does_not_import_the_terminal() -> None:
    code = "import sys, notebook_tools; print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'prompt_toolkit') or m.startswith('notebook_tools.terminal')))"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert shown.stdout.strip() == "[]"
