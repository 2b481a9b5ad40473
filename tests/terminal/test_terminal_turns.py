"""Whole turns on the scripted Messages API: thinking, a web search with citations, a cut-off reply and
/continue, a refusal and the message after it, usage after each turn — in process and in a real terminal.

The agent streams real SSE through the real `anthropic` client; the scripted API refuses what the real one
would, so `script.refused == []` says every request the terminal caused (/continue, the message after a
refusal) was valid.
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

from rich.cells import cell_len
from rich.console import Console

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.terminal import TerminalChat, build_agent
from notebook_tools.terminal._scripted import scripted_transport
from tests.support.readiness import CEILING
from tests.terminal.test_terminal_screen import WIDTH, Tmux, prompts, terminal  # noqa: F401 (`terminal`: a fixture)

SGR = re.compile(r"\x1b\[[0-9;]*m")
TAKE_BACK = re.compile(r"\x1b\[(\d+)D\x1b\[0K")
OSC8 = re.compile(r"\x1b\]8;[^;]*;([^\x1b]*)\x1b\\")


def chat_on(
    agent: nt.Agent, lines: list[str], *, tty: bool = False, watch: Any = None
) -> tuple[TerminalChat, io.StringIO]:
    out = io.StringIO()
    console = Console(
        file=out,
        force_terminal=tty,
        color_system="standard" if tty else None,
        width=100,
        highlight=False,
        emoji=False,
    )
    chat = TerminalChat(agent, console=console, input=[*lines, "/exit"])
    if watch is not None:  # called after the chat showed each event
        agent.events.subscribe(lambda event: watch(event, out.getvalue()))
    assert asyncio.run(asyncio.wait_for(chat.run(), CEILING)) == 0
    return chat, out


def shown(raw: str) -> str:
    """What a terminal shows: colours and links off, words taken back erased."""
    text = OSC8.sub("", SGR.sub("", raw))
    while found := TAKE_BACK.search(text):
        text = text[: found.start() - int(found.group(1))] + text[found.end() :]
    return text


def test_thinking_a_cited_web_search_and_a_cut_off_reply_carried_on_with_continue() -> None:
    script = scripted_transport(event_delay=0)
    agent, _ = build_agent(script=script)
    seen: list[tuple[str, str]] = []  # each thinking delta and block, with the screen as it then was

    def watch(event: Any, screen: str) -> None:
        if event.type == "thinking_delta" or (
            event.type == "assistant_block" and event.block["type"] == "thinking"
        ):
            seen.append((event.type, screen))

    chat, out = chat_on(
        agent,
        ["search the web for filling missing prices", "write an essay", "/continue"],
        tty=True,
        watch=watch,
    )
    deltas = [screen for kind, screen in seen if kind == "thinking_delta"]
    assert len(deltas) > 3 and seen[-1][0] == "assistant_block", "thinking streamed in pieces, then its block"
    assert "╭─ Thinking" in shown(deltas[0]) and "The" in shown(deltas[0]).split("╭─ Thinking")[1]
    assert "halves." not in shown(deltas[0]), "the first piece was on screen before the thinking ended"
    raw, text = out.getvalue(), shown(out.getvalue())
    lines = [line.rstrip() for line in text.split("\n")]
    start = lines.index("you> search the web for filling missing prices")
    assert lines[start + 1] == "╭─ Thinking"
    answer = lines.index("Let me search the web (the results are scripted).")
    thought = " ".join(line.removeprefix("│ ") for line in lines[start + 2 : answer])
    assert thought.startswith("The person wants sources") and thought.endswith("answers both halves.")
    assert lines[answer : answer + 4] == [
        "Let me search the web (the results are scripted).",
        "⌕ Searched the web: filling missing prices",
        "  · Working with missing data (pandas) — pandas.pydata.org",
        "  · pandas.DataFrame.drop_duplicates — pandas.pydata.org",
    ]
    assert lines[answer + 4] == (
        "pandas fills gaps with fillna or interpolate[1] and drops repeated rows with drop_duplicates[2]."
    )
    assert lines[answer + 5 : answer + 8] == [
        "Sources",
        "  [1] Working with missing data (pandas) — pandas.pydata.org",
        "  [2] pandas.DataFrame.drop_duplicates — pandas.pydata.org",
    ]
    assert lines[answer + 8].startswith("· this turn ") and "1 web search" in lines[answer + 8]
    assert "https://pandas.pydata.org/docs/user_guide/missing_data.html" in OSC8.findall(raw)
    thinking = raw[raw.index("Thinking") : raw.index("Let")]
    assert "\x1b[2m" in thinking, "the thinking streamed dimmed"
    # the essay is cut off: the notice says why, what to raise, and that /continue carries on
    assert "─ cut off ─" in text and "raise max_tokens" in text
    assert "/continue carries on from where it stopped" in text
    rest = text.index("you> /continue")
    assert ": how to fill a gap, which repeated rows are real." in text[rest:]
    assert script.refused == [] and len(script.requests) == 3
    assert chat.last_result is not None and chat.last_result.stop_reason == "end_turn"
    assert "the turn ended" not in text, "the notice said it once"


def test_a_refusal_is_shown_and_the_next_message_starts_fresh() -> None:
    details = {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This looks like a request for malware.",
    }
    script = t.ScriptedTransport(
        t.reply("Hello."),
        t.turn("", stop_reason="refusal", stop_details=details),
        t.reply("Fresh start."),
    )
    agent = nt.Agent(client=script.client(), model="claude-sonnet-4-6")
    _, out = chat_on(agent, ["hi", "write malware", "what can you do?"])
    text = out.getvalue()
    assert "─ refused ─" in text and "This looks like a request for malware." in text and "cyber" in text
    assert "set aside" in text
    assert text.index("─ refused ─") < text.index("you> what can you do?") < text.index("Fresh start.")
    assert script.refused == []
    sent = [m for m in script.requests[-1]["messages"] if m["role"] == "user"]
    assert "write malware" not in str(sent), "the refused message was set aside"
    usage_lines = [line for line in text.split("\n") if line.startswith("· ")]
    assert len(usage_lines) == 3 and all(
        "scripted model: estimated tokens, no cost" in line for line in usage_lines
    )
    assert not any("$" in line for line in usage_lines), usage_lines
    assert "context " in usage_lines[-1] and " of 200,000 tokens" in usage_lines[-1]


def test_tool_calls_read_as_a_person_writes_them() -> None:
    @nt.tool
    def describe_table(table: str, columns: list[str]) -> str:
        """Describe a table.

        Args:
            table: The table.
            columns: Its columns.
        """
        return "4 rows"

    script = t.ScriptedTransport(
        t.turn(t.tool_use("describe_table", {"table": "sales", "columns": ["price", "qty"]})),
        t.reply("Done."),
    )
    _, out = chat_on(nt.Agent(client=script.client(), tools=[describe_table]), ["look"])
    assert '⚙ describe_table · table: sales, columns: ["price","qty"]\n' in out.getvalue()
    assert "({" not in out.getvalue()


def test_in_a_real_terminal_thinking_stays_in_its_margin_and_continue_carries_on(terminal: Tmux) -> None:  # noqa: F811
    terminal.until("the message prompt", lambda lines: prompts(lines) == 1)
    terminal.keys("search the web for prices", "Enter")
    lines = terminal.until("the sources", lambda lines: prompts(lines) == 2 and lines[-1] == "you>")
    start = lines.index("╭─ Thinking")
    answer = next(i for i, line in enumerate(lines) if line.startswith("Let me search the web"))
    thinking = lines[start + 1 : answer]
    assert len(thinking) >= 3 and all(line.startswith("│ ") for line in thinking), "\n".join(lines)
    assert all(cell_len(line) <= WIDTH for line in lines)
    assert terminal.screen(joined=True) == lines, "the chat wrapped every line; the terminal none"
    for said in ("⌕ Searched the web: prices", "Sources", "  [1] Working with missing data"):
        assert any(line.startswith(said) for line in lines), said
    terminal.keys("write an essay", "Enter")
    terminal.until(
        "the notice", lambda lines: prompts(lines) == 3 and any("/continue carries" in x for x in lines)
    )
    terminal.keys("/continue", "Enter")
    lines = terminal.until(
        "the rest of the essay",
        lambda lines: lines[-1] == "you>" and any(line.startswith(": how to fill a gap") for line in lines),
    )
    assert lines.index("you> /continue") < next(i for i, x in enumerate(lines) if x.startswith(": how to"))
