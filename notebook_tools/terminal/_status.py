"""The terminal's status lines: one updating line per running tool, with its step, share and preview.

On a terminal the lines are a rich `Live` region under the transcript, redrawn at most ten times
a second however often a tool reports, and erased when the last call ends (its ✓ or ✗ line is
the record). Without a terminal (a log, a pipe, NO_COLOR tests) nothing is redrawn: a line is
printed when a call starts a step of a new name, so a log shows each step once.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from ..events._activity import fold, percent
from ._render import Screen, short

__all__ = ["StatusLines"]


class StatusLines:
    """What each running backend call last reported, shown through `screen`'s console."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}
        """tool_use_id -> (tool name, its folded reports), in the order the calls began."""
        self._steps: dict[str, str] = {}
        """The last step name printed for each call (without a terminal)."""
        self._live: Live | None = None

    @property
    def live(self) -> bool:
        """Whether lines are redrawn in place (a terminal), else printed once per step."""
        return self.screen.console.is_interactive

    def line(self, tool_use_id: str) -> str:
        """A call's line: "scrape · scraping · urls_scraped 3 / urls_total 5 · 60% · page 3 · ⟨preview⟩"."""
        name, state = self._calls[tool_use_id]
        parts = [name, state.get("step", ""), percent(state.get("fraction")), state.get("message", "")]
        if state.get("preview"):
            parts.append(f"⟨{short(state['preview'], 60)}⟩")
        return short(" · ".join(p for p in parts if p), 200)

    def report(self, event: Any, name: str) -> None:
        """A `ToolProgress`, `ToolStep` or `ToolResultPreview` of the call `event.tool_use_id`."""
        call = event.tool_use_id
        state = fold(self._calls[call][1] if call in self._calls else None, event)
        self._calls[call] = (name, state)
        if self.live:
            self._draw()
        elif event.type == "tool_step" and self._steps.get(call) != event.step:
            self._steps[call] = event.step
            self.screen.line(f"  … {self.line(call)}", "dim")

    def end(self, tool_use_id: str) -> None:
        """The call ended: its line goes (before its result is printed)."""
        self._steps.pop(tool_use_id, None)
        if self._calls.pop(tool_use_id, None) is not None and self._live is not None:
            self._draw()

    def clear(self) -> None:
        """Every line goes (the turn ended or was stopped)."""
        self._calls.clear()
        self._steps.clear()
        self._draw()

    def _draw(self) -> None:
        if not self._calls:
            if self._live is not None:
                self._live.stop()
                self._live = None
            return
        lines = Group(*(Spinner("dots", Text(self.line(call)), style="cyan") for call in self._calls))
        if self._live is None:
            self.screen.end_line()
            self._live = Live(
                lines,
                console=self.screen.console,
                transient=True,
                refresh_per_second=10,
                redirect_stdout=False,  # prompt_toolkit owns the terminal's input; only our console draws
                redirect_stderr=False,
            )
            self._live.start()
        else:
            self._live.update(lines)  # drawn by the Live's own refresh, ten times a second at most
