"""What the terminal shows: streamed text, tool cards, prompt cards, notices (rich).

Output is plain text (no escape codes at all) when NO_COLOR is set or stdout is not a terminal,
so logs and tests can match it; otherwise rich adds colour and styles. Text from the model, tools
and files is printed as text, never as rich markup.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Collection
from typing import Any, TextIO

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.control import Control
from rich.panel import Panel
from rich.segment import ControlType
from rich.table import Table
from rich.text import Text

from ..events._prompt import Prompt
from ..events._toolset_text import available_tools, container_answer, event_line, is_note, note_line
from ._clean import arguments_text, clean
from ._wrap import TakeBack, WordWrap

__all__ = ["Screen", "make_console", "short"]

_ENDED = {"skipped": "skipped", "timed_out": "timed out", "cancelled": "cancelled", "failed": "not answered"}


def make_console(file: TextIO | None = None, *, width: int | None = None) -> Console:
    """A console that is plain (no colour codes) under NO_COLOR or when the output is not a terminal."""
    target = file if file is not None else sys.stdout
    plain = bool(os.environ.get("NO_COLOR")) or not (hasattr(target, "isatty") and target.isatty())
    return Console(
        file=file, color_system=None if plain else "auto", highlight=False, emoji=False, width=width
    )


PYTHON_SOURCE = "text/x-python"
"""The media type that marks a string argument as Python source."""


def code_arguments(schema: dict[str, Any] | None, args: dict[str, Any]) -> list[str]:
    """The top-level arguments `schema` marks as Python source that are strings, in the schema's order."""
    props = (schema or {}).get("properties") or {}
    return [
        name
        for name, prop in props.items()
        if isinstance(prop, dict)
        and prop.get("contentMediaType") == PYTHON_SOURCE
        and isinstance(args.get(name), str)
    ]


def short(value: Any, limit: int = 160) -> str:
    """One line of at most `limit` characters for arguments and results."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Screen:
    """The terminal's transcript, written through one rich console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._wrap = WordWrap()
        self._fresh = True  # the cursor is at the start of a line
        self._margin = ""  # the margin of the current line
        self.writes = 0
        """Counts what was printed outside a margin (to tell whether thinking was interrupted)."""

    @property
    def mid_line(self) -> bool:
        """Whether streamed text left the cursor in the middle of a line."""
        return self._wrap.mid_line

    @property
    def _width(self) -> int:
        """Where lines wrap: the terminal's width; never, into a file or pipe (logs keep whole lines)."""
        return self.console.width if self.console.is_terminal else 1 << 30

    # -- text ------------------------------------------------------------------------------------

    def write(self, text: str, style: str = "", margin: str = "") -> None:
        """Text as it streams in (no newline added), wrapped at spaces to the terminal's width.

        `margin` starts each of its lines (thinking streams under "│ "); text with another margin
        than the line's starts a new line.
        """
        text = clean(text)
        if margin != self._margin and self._wrap.mid_line:
            self.end_line()
        self._margin = margin
        for part in self._wrap.feed(text, self._width - cell_len(margin)) if text else []:
            if isinstance(part, TakeBack):  # a word that outgrew its line moves to the next one
                self.console.control(
                    Control((ControlType.CURSOR_BACKWARD, part.cells), (ControlType.ERASE_IN_LINE, 0))
                )
            elif part:
                self._print(part, style, margin)

    def _print(self, part: str, style: str, margin: str) -> None:
        for i, piece in enumerate(part.split("\n")):
            if i:
                if self._fresh and margin:  # an empty line keeps its margin
                    self.console.print(Text(margin.rstrip(), style="dim"), end="", soft_wrap=True)
                self.console.print()
                self._fresh = True
            if piece:
                if self._fresh and margin:
                    self.console.print(Text(margin, style="dim"), end="", soft_wrap=True)
                self.console.print(Text(piece, style=style), end="", soft_wrap=True)
                self._fresh = False
                self.writes += 0 if margin else 1

    def end_line(self) -> None:
        """Finish a line of streamed text before anything else is printed."""
        if self._wrap.mid_line:
            self.console.print()
        self._wrap.newline()
        self._fresh, self._margin = True, ""

    def line(self, text: str | Text, style: str = "") -> None:
        """A whole line of text (on a line of its own), wrapped at spaces in a terminal."""
        self.end_line()
        shown = Text(clean(text), style=style) if isinstance(text, str) else text
        self.console.print(shown, soft_wrap=not self.console.is_terminal)
        self.writes += 1

    def notice(self, text: str) -> None:
        """A note from the terminal itself, in square brackets."""
        self.line(f"[{text}]", "dim")

    def problem(self, text: str, details: str = "") -> None:
        """Something went wrong or was refused; technical `details` go on a second, dim line."""
        self.line(f"! {text}", "bold red")
        if details:
            self.line(f"  details: {short(details, 400)}", "dim")

    def show(self, renderable: RenderableType) -> None:
        """Any rich renderable (tables, panels)."""
        self.end_line()
        self.console.print(renderable)
        self.writes += 1

    # -- tools -----------------------------------------------------------------------------------

    def tool_started(self, name: str, arguments: dict[str, Any]) -> None:
        """A backend tool began."""
        said = arguments_text(arguments)
        self.line(f"⚙ {name} · {said}" if said else f"⚙ {name}", "cyan")

    def tool_completed(self, name: str, content: Any, seconds: float, app: bool = False) -> None:
        """A backend tool returned (`app`: its MCP server shows it in an app the terminal cannot run)."""
        self.line(f"  ✓ {name} → {short(_content_text(content))} ({seconds:.1f} s)", "green")
        if app:
            self.line("    (its MCP app shows in a notebook; here, its text)", "dim")

    def tool_failed(self, name: str, error: str) -> None:
        """A call ended with an error result (failed, denied, interrupted)."""
        self.line(f"  ✗ {name}: {short(error)}", "red")

    # -- prompts ---------------------------------------------------------------------------------

    def card(
        self, prompt: Prompt, position: int, total: int, details: list[str] | None = None, limit: str = ""
    ) -> None:
        """A prompt's card: what is asked, with the facts needed to answer it (`limit`: its timeout)."""
        body: list[RenderableType] = [Text(clean(_question(prompt)), style="bold")]
        if prompt.kind == "approval":
            if prompt.description:
                body.append(Text(clean(prompt.description.strip().splitlines()[0]), style="italic"))
            code = code_arguments(prompt.input_schema, prompt.input)  # shown whole in their own box below
            rest = {k: v for k, v in prompt.input.items() if k not in code}
            if rest:
                body.append(Text(clean(json.dumps(rest, indent=2, ensure_ascii=False, default=str))))
            elif not code:
                body.append(Text("(no arguments)"))
        body.extend(Text(clean(d), style="dim") for d in details or [])
        if prompt.error:
            body.append(Text(clean(f"! {prompt.error}"), style="bold red"))
        which = f"{position} of {total} · " if total > 1 else ""
        title = f"{which}{'approval' if prompt.kind == 'approval' else prompt.name}{limit}"
        self.show(Panel(Group(*body), title=Text(title), title_align="left", box=box.ROUNDED, expand=False))

    def closed(self, prompt: Prompt) -> None:
        """How a prompt ended."""
        if prompt.status == "answered":
            self.line(f"  → {prompt.answer}", "green")
        else:
            why = f": {prompt.answer}" if prompt.answer and prompt.answer != "skipped" else ""
            self.line(f"  → {_ENDED.get(prompt.status, prompt.status)}{why}", "yellow")

    def history(
        self,
        messages: list[dict[str, Any]],
        limit: int = 40,
        containers: Collection[str] = (),
        assistant: Callable[[dict[str, Any] | None], None] | None = None,
    ) -> None:
        """A loaded session's last messages, as they were shown (`containers`: plugin and skill names).

        `assistant` shows an assistant message's blocks but tool calls (thinking, server tools, cited
        text), and is called with None at the end of each assistant message.
        """
        if len(messages) > limit:
            self.notice(f"{len(messages) - limit} earlier messages not shown")
        names: dict[str, str] = {}
        for message in messages[-limit:]:
            content = message["content"]
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": content}] if isinstance(content, str) else content
            )
            for block in blocks:
                if block.get("type") == "text" and message["role"] == "user":
                    self._user_text(block["text"])
                elif message["role"] == "assistant" and block.get("type") != "tool_use" and assistant:
                    assistant(block)
                elif block.get("type") == "text":
                    self.line(block["text"])
                elif block.get("type") == "tool_use":
                    names[block["id"]] = name = str(block["name"])
                    if name not in containers:
                        self.tool_started(name, dict(block.get("input") or {}))
                elif block.get("type") == "tool_result":
                    self._result(block, names.get(block["tool_use_id"], ""), containers)
            if message["role"] == "assistant" and assistant:
                assistant(None)

    def _user_text(self, text: str) -> None:
        if not is_note(text):
            self.line(f"you> {text}", "bold")
            return
        for note in text.split("\n"):  # notes of things done by hand, one a line
            line = note_line(note)
            if line:
                self.event(line)

    def _result(self, block: dict[str, Any], name: str, containers: Collection[str]) -> None:
        text = _content_text(block.get("content", ""))
        answer = container_answer(name, text) if name in containers and not block.get("is_error") else None
        if answer in ("expanded", "skill_activated"):
            self.event(event_line(answer, [name], "model", available_tools(text)))
        elif answer is None:
            mark = "✗" if block.get("is_error") else "✓"
            self.line(f"  {mark} {short(text)}", "dim")

    # -- commands --------------------------------------------------------------------------------

    def tools(self, tools: list[Any]) -> None:
        """The tools table of /tools."""
        table = Table(box=box.SIMPLE_HEAD, show_edge=False)
        for column in ("tool", "kind", "by hand", "what it does"):
            table.add_column(column)
        for found in tools:
            by_hand = found.mode != "llm" and found.executor == "backend"
            kind = "prompt" if found.executor == "frontend" else "backend"
            summary = found.description.strip().splitlines()[0] if found.description else ""
            table.add_row(Text(clean(found.name)), kind, "yes" if by_hand else "", Text(clean(summary)))
        self.show(table)
        self.notice("run one by hand: /tool NAME --arg value (or /NAME --arg value)")

    def event(self, text: str) -> None:
        """Something that happened to the tool set (a plugin expanded, tools changed): a dim line."""
        self.line(f"· {text}", "dim")

    def plugins(self, plugins: list[dict[str, Any]]) -> None:
        """The plugins table of /plugins."""
        if not plugins:
            self.notice("this agent has no plugins")
            return
        table = Table(box=box.SIMPLE_HEAD, show_edge=False)
        for column in ("plugin", "state", "skills", "what it offers"):
            table.add_column(column)
        for p in plugins:
            skills = ", ".join(f"{s['name']} (active)" if s["active"] else s["name"] for s in p["skills"])
            summary = p["description"].strip().splitlines()[0] if p["description"] else ""
            state = "expanded" if p["expanded"] else "collapsed"
            row = (p["name"], f"{state} · {len(p['tools'])} tools", skills, summary)
            table.add_row(*(Text(clean(cell)) for cell in row))  # descriptions may come from MCP servers
        self.show(table)
        self.notice("/expand NAME or /collapse NAME; the model is told with your next message")

    def pairs(self, rows: list[tuple[str, str]]) -> None:
        """A two-column table (/status)."""
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
        table.add_column(style="bold")
        table.add_column()
        for key, value in rows:
            table.add_row(key, Text(clean(value)))
        self.show(table)


def _question(prompt: Prompt) -> str:
    args = prompt.input
    if prompt.kind == "approval":
        return f"Run {prompt.name}?"
    if prompt.kind == "confirm":
        return str(args.get("message", "Confirm?"))
    if prompt.kind in ("text", "select", "file"):
        return str(args.get("prompt", prompt.name))
    if isinstance(args.get("message"), str) and args["message"].strip():
        return str(args["message"])  # the question (its other arguments are the card's lines below)
    summary = prompt.description.strip().splitlines()[0] if prompt.description else prompt.name
    return f"{summary} {short(args, 200)}" if args else summary


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text", f"[{b.get('type')}]")) for b in content if isinstance(b, dict))
