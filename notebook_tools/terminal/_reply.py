"""The model's reply on the terminal: thinking, answer, citations, server tools, notices and usage.

Thinking streams dimmed under a "Thinking" label, each of its lines in a "│ " margin, so it reads apart
from the answer even without colour; a redacted block says "(thinking redacted)". The answer streams as
plain text; a cited passage gets numbered markers [1] as its block completes, and the reply ends with its
"Sources". Blocks a server ran (searches, fetches, code, MCP calls) are shown by `_blocks`. A
`TurnNotice` (refused, cut off, window full) is a card saying what happened and what to do; the tokens
and estimated cost of the turn and of the session follow each turn, and stay in the bottom toolbar.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from ._blocks import block_lines, linked
from ._clean import clean, one_line
from ._render import Screen
from ._usage import toolbar_text, turn_line

__all__ = ["MARGIN", "Reply"]

MARGIN = "│ "
"""Starts each line of thinking."""
LABEL = "╭─ Thinking"

_ENDED = {
    "refusal": "refused",
    "max_tokens": "cut off",
    "model_context_window_exceeded": "context window full",
    "pause_turn": "paused",
}


class Reply:
    """Renders the display events of the model's replies on `screen`."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.usage: Any = None
        """The last `UsageEvent`."""
        self._usage_new = False  # a response came in since the last usage line
        self._noticed = False  # this turn ended with a TurnNotice
        self._streamed: set[tuple[int, int]] = set()  # (request, block index) that streamed deltas
        self._thought = -1  # `screen.writes` when thinking was last shown (a new label after anything else)
        self._calls: dict[str, dict[str, Any]] = {}  # server and MCP tool calls by id, for their results
        self._sources: dict[str, tuple[int, Text]] = {}  # a cited source's key -> its number, its line

    def on_event(self, event: Any) -> bool:
        """Show `event` if it is about the reply; False for other events."""
        kind = event.type
        if kind == "thinking_delta":
            self._streamed.add((event.request, event.index))
            self.think(event.text)
        elif kind == "text_delta":
            self._streamed.add((event.request, event.index))
            self.screen.write(event.text)
        elif kind == "assistant_block":
            self.block(event.block, (event.request, event.index))
        elif kind == "message":
            if event.message.get("role") == "assistant":
                self.end_reply()
        elif kind == "turn_notice":
            self.notice(event)
        elif kind == "usage":
            self.usage, self._usage_new = event, True
        else:
            return False
        return True

    # -- blocks ----------------------------------------------------------------------------------

    def think(self, text: str) -> None:
        """Thinking text, dimmed in the margin, under a "Thinking" label when something came between."""
        if self._thought != self.screen.writes:
            self.screen.line(LABEL, "dim bold")
        self.screen.write(text, "dim", margin=MARGIN)
        self._thought = self.screen.writes

    def block(self, block: dict[str, Any], key: tuple[int, int] = (-1, -1)) -> None:
        """A complete content block (shown already when its deltas streamed in: then only what is new)."""
        kind = block.get("type")
        streamed = key in self._streamed
        self._streamed.discard(key)
        if kind == "text":
            if not streamed:
                self.screen.write(str(block.get("text", "")))
            self._cite(block.get("citations") or [])
        elif kind in ("thinking", "redacted_thinking"):
            if not streamed:
                self.screen.end_line()
                thought = str(block.get("thinking") or "(thinking omitted)") if kind == "thinking" else ""
                self.think(thought or "(thinking redacted)")
            self.screen.end_line()
        elif kind == "tool_use":
            return  # a client tool: its ToolStarted event shows it
        else:
            if kind in ("server_tool_use", "mcp_tool_use") and isinstance(block.get("id"), str):
                self._calls[block["id"]] = block
            for shown in block_lines(block, self._calls.get(str(block.get("tool_use_id", "")))):
                self._show(shown)

    def replay(self, block: dict[str, Any] | None) -> None:
        """A block of a loaded session's assistant message (None: the message ended)."""
        if block is None:
            self.end_reply()
        else:
            self.block(block)

    def _cite(self, citations: list[Any]) -> None:
        numbers: list[int] = []
        for citation in citations:
            if isinstance(citation, dict):
                key, line = _source(citation)
                number = self._sources.setdefault(key, (len(self._sources) + 1, line))[0]
                if number not in numbers:
                    numbers.append(number)
        if numbers:
            self.screen.write("".join(f"[{n}]" for n in numbers), "cyan")

    def end_reply(self) -> None:
        """The reply is complete: its sources, numbered as cited."""
        self._streamed.clear()
        if not self._sources:
            return
        self.screen.line("Sources", "bold")
        for number, line in self._sources.values():
            self.screen.line(Text.assemble("  ", (f"[{number}]", "cyan"), " ", line))
        self._sources.clear()

    # -- the end of a turn -------------------------------------------------------------------------

    def notice(self, event: Any) -> None:
        """Why the turn ended early, the API's explanation, and what to do."""
        self.end_reply()
        self._noticed = True
        body: list[RenderableType] = [Text(one_line(event.title, 300), style="bold")]
        category = (event.stop_details or {}).get("category")
        if category and str(category) not in event.detail:
            body.append(Text(f"category: {one_line(category, 80)}"))
        for said in (event.detail, event.advice):
            if said:
                body.append(Text(clean(said).strip()))
        if event.stop_reason == "refusal" and "set aside" not in event.advice:
            body.append(Text("set aside: your next message starts fresh", style="yellow"))
        if "continue" in event.actions:
            body.append(Text("/continue carries on from where it stopped", style="yellow"))
        title = Text(_ENDED.get(event.stop_reason, one_line(event.stop_reason, 60).replace("_", " ")))
        self._show(
            Panel(
                Group(*body),
                title=title,
                title_align="left",
                box=box.ROUNDED,
                border_style="yellow",
                expand=False,
            )
        )

    def turn_ended(self, stop_reason: str | None) -> None:
        """After a turn (None: it failed or was stopped): why it ended when no notice said, and its usage."""
        self.screen.end_line()
        self.end_reply()
        if stop_reason not in (None, "end_turn") and not self._noticed:
            self.screen.notice(f"the turn ended: {stop_reason.replace('_', ' ')}")
        if self._usage_new and self.usage is not None:
            self.screen.line(f"· {turn_line(self.usage)}", "dim")
        self._noticed = self._usage_new = False
        self._calls.clear()

    def toolbar(self, agent_uuid: str) -> str | None:
        """The bottom toolbar's text for session `agent_uuid`, or None before its first response."""
        usage = self.usage
        if usage is None or (usage.agent_uuid and usage.agent_uuid != agent_uuid):
            return None
        return toolbar_text(usage)

    def _show(self, shown: RenderableType) -> None:
        if isinstance(shown, Text):
            self.screen.line(shown)
        else:
            self.screen.show(shown)


def _source(citation: dict[str, Any]) -> tuple[str, Text]:
    """A citation's source: a key shared by citations of the same source, and its line under "Sources"."""
    url = citation.get("url")
    if isinstance(url, str) and url:
        return f"url:{url}", linked(citation.get("title"), url)
    if citation.get("type") == "search_result_location":
        source = str(citation.get("source", ""))
        return f"search:{source}", linked(citation.get("title") or source, source)
    if "document_index" in citation:
        index = citation.get("document_index")
        number = index + 1 if isinstance(index, int) else "?"
        title = one_line(citation.get("document_title") or f"document {number}", 120)
        return f"document:{index}", Text(title)
    kind = one_line(citation.get("type", "source"), 60)
    title = one_line(citation.get("title") or citation.get("cited_text") or kind, 120)
    return f"{kind}:{title}", Text(title)
