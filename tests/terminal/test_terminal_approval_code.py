"""The terminal's approval of a call that runs Python: the code shown as code, why it asks, and
"remember for calls like this" (an `ApprovalScope`), driven in-process with typed lines."""

from __future__ import annotations

import asyncio
import io
from typing import Annotated, Any

from pydantic import Field
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat
from notebook_tools.terminal._ask import code_arguments, code_panel, preview_panel
from tests.support.readiness import CEILING

CODE = "df = df.dropna()\nfor i in range(3):\n    print(i)\n"
LABEL = "code that reassigns variables or modifies data in place"
REASON = "line 1: reassigns existing variable 'df'"
PythonSource = Annotated[str, Field(json_schema_extra={"contentMediaType": "text/x-python"})]


def scope_of(arguments: dict[str, Any]) -> nt.ApprovalScope:
    return nt.ApprovalScope(key="code:reassign", label=LABEL, reasons=(REASON,))


def make_tool(*, scoped: bool) -> nt.Tool:
    def run_code(code: PythonSource, timeout: float = 30) -> str:
        """Run Python in the notebook.

        Args:
            code: The Python to run.
            timeout: At most this many seconds.
        """
        return f"ran {len(code.splitlines())} lines in at most {timeout:g} s"

    return nt.tool(needs_approval=True, approval_scope=scope_of if scoped else None)(run_code)


def plain_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, color_system=None, width=200, highlight=False, emoji=False), out


def chat(
    tool: nt.Tool, calls: list[dict[str, Any]], lines: list[str]
) -> tuple[list[Any], str, t.ScriptedTransport]:
    """Run a chat whose model calls `tool` once per item of `calls` (one turn each); the answers and screen."""
    steps: list[Any] = [t.turn(t.tool_use("run_code", args, id=f"call{i}")) for i, args in enumerate(calls)]
    script = t.ScriptedTransport(*steps, lambda body: t.reply("done"))
    agent = nt.Agent(client=script.client(), tools=[tool])
    recorder = nt.EventRecorder()
    agent.events.subscribe(recorder)
    console, out = plain_console()
    code = asyncio.run(asyncio.wait_for(TerminalChat(agent, console=console, input=lines).run(), CEILING))
    assert code == 0
    return [e.answer for e in recorder.of_type("prompt_answer")], out.getvalue(), script


def test_the_code_shows_as_code_with_why_it_asks_and_remembering_its_scope_covers_the_next_call() -> None:
    tool = make_tool(scoped=True)
    answers, screen, script = chat(
        tool, [{"code": CODE}, {"code": "df = df.fillna(0)"}], ["run it", "s", "/exit"]
    )
    assert answers == [{"value": {"approved": True, "remember": "scope"}}]  # the second call was not asked
    assert f"s) Approve, and remember for {LABEL} for this session" in screen
    assert "why it asks:" in screen and f"• {REASON}" in screen
    # numbered lines (a reason names its line), the indentation kept
    assert "1 df = df.dropna()" in screen and "3     print(i)" in screen
    assert screen.index("╭─ code ") < screen.index("a) Approve")  # the code box, before the choice
    assert "dropna" not in screen[: screen.index("╭─ code ")]  # once: not also as escaped JSON on the card
    assert screen[: screen.index("a) Approve")].count("dropna") == 1 and "\\n" not in screen
    said = [
        b["content"]
        for m in script.requests[-1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert said == ["ran 3 lines in at most 30 s", "ran 1 lines in at most 30 s"]


def test_no_scope_no_scope_choice() -> None:
    tool = make_tool(scoped=False)
    answers, screen, _ = chat(tool, [{"code": CODE}], ["run it", "s", "a", "/exit"])
    assert answers == [{"value": {"approved": True, "remember": None}}]
    assert "remember for" not in screen and "why it asks" not in screen
    assert "type a/d/e/r/t" in screen  # "s" is not a choice here


def test_the_code_is_edited_as_lines_and_sent_with_the_other_arguments() -> None:
    tool = make_tool(scoped=True)
    lines = ["run it", "e", "x = 1", "print(x)", ".", "5", "a", "/exit"]
    answers, screen, _ = chat(tool, [{"code": CODE}], lines)
    assert answers == [
        {
            "value": {
                "approved": True,
                "edited_input": {"code": "x = 1\nprint(x)", "timeout": 5},
                "remember": None,
            }
        }
    ]
    assert "code (Python; a line holding only . ends it; . alone keeps it)" in screen
    assert "code (edited)" in screen and "2 print(x)" in screen
    assert 'edited arguments: {"timeout": 5}' in screen


def test_keeping_the_code_while_editing_the_rest() -> None:
    tool = make_tool(scoped=True)
    answers, _, _ = chat(tool, [{"code": CODE}], ["run it", "e", ".", "9", "a", "/exit"])
    assert answers == [
        {"value": {"approved": True, "edited_input": {"code": CODE, "timeout": 9}, "remember": None}}
    ]


def test_code_arguments_and_the_code_box() -> None:
    schema = make_tool(scoped=False).input_schema
    assert code_arguments(schema, {"code": "x", "timeout": 1}) == ["code"]
    assert code_arguments(schema, {"code": 3}) == []  # not a string: shown as the other arguments are
    assert code_arguments(None, {"code": "x"}) == []
    coloured = io.StringIO()
    Console(file=coloured, color_system="truecolor", width=80).print(
        code_panel("import os\nos.getcwd()", "code")
    )
    assert "\x1b[" in coloured.getvalue()  # rich's Syntax colours it
    hostile = io.StringIO()
    Console(file=hostile, color_system=None, width=80).print(
        code_panel("x = 1\x1b[2J\u202e# gpj.exe", "co\x1bde")
    )
    assert "\x1b" not in hostile.getvalue() and "\u202e" not in hostile.getvalue()


def test_a_preview_shows_in_its_own_box_before_the_choice_as_literal_text() -> None:
    diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-DEBUG = True\n+DEBUG = [bold red]False[/]\x1b[2J"

    @nt.tool(needs_approval=True, approval_preview=lambda args: nt.ApprovalPreview(kind="diff", text=diff))
    def run_code(code: str) -> str:
        """Change a file."""
        return "changed"

    answers, screen, _ = chat(run_code, [{"code": "x"}], ["go", "a", "/exit"])
    assert answers == [{"value": {"approved": True, "remember": None}}]
    box = screen.index("╭─ the change to approve ")
    assert box < screen.index("a) Approve")
    shown = screen[box : screen.index("a) Approve")]
    for line in ("--- a.py", "@@ -1 +1 @@", "-DEBUG = True", "+DEBUG = [bold red]False[/]"):
        assert f"│ {line}" in shown  # rich markup in it stays text; the escape sequence is dropped
    assert "\x1b" not in screen


def test_the_preview_colours_added_and_removed_lines() -> None:
    out = io.StringIO()
    console = Console(file=out, color_system="standard", width=80, force_terminal=True)
    console.print(preview_panel("diff", "--- a\n+++ a\n@@ -1 +1 @@\n-old\n+new\n same\n--- a comment"))
    ansi = out.getvalue()
    assert "\x1b[31m-old" in ansi and "\x1b[32m+new" in ansi and "\x1b[1m--- a" in ansi
    assert "\x1b[31m--- a comment" in ansi  # after a hunk: a removed "-- " line, not a file header
    assert "same" in ansi and "\x1b[32m same" not in ansi and "\x1b[31m same" not in ansi
