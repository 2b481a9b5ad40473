"""The chat's static copy: its transcript as HTML in the notebook, for viewers without a kernel.

A widget is nothing without its kernel: on GitHub, nbviewer or in `jupyter nbconvert --to html`
the cell that showed a chat would show no conversation. So that cell also gets a sanitized HTML copy
of the transcript (`_export.to_html`), one `display_data` output with a display id, replaced when a
turn ends (one update per ended turn, never per streamed token). A live view hides the copy of its
own chat (`js/src/staticCopy.ts`, told the chat's id by the class `nt-chat-<id>` on the view), so
where the widget runs the conversation shows once.
"""

from __future__ import annotations

import os
import pathlib
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from .._exceptions import ConfigurationError
from ._export import to_html, to_markdown, to_page

__all__ = ["TURN_ENDS", "StaticCopy", "export"]

PAUSES = frozenset({"awaiting_frontend_tools", "awaiting_approval"})
"""The statuses of a turn paused for a person: the copy shows what is asked."""
TURN_ENDS = PAUSES | {"idle", "stopped", "error"}
"""The statuses that end a turn (or pause it for a person): the copy is brought up to date."""

CHAT_CLASS = "nt-chat-"
"""The view's class `nt-chat-<id>` names the chat whose static copy it hides."""


class StaticCopy:
    """The HTML copy of one chat's transcript, in every cell that displayed the chat."""

    def __init__(self, items: Callable[[], Iterable[Any]], *, title: str = "") -> None:
        self.chat_id = uuid.uuid4().hex
        self.display_id = f"nt-static-{self.chat_id}"
        self.title = title
        self._items = items
        self._html = ""
        self._shown = False

    @property
    def view_class(self) -> str:
        """The class the chat's view carries so that it can hide this copy."""
        return CHAT_CLASS + self.chat_id

    def html(self) -> str:
        """The copy as it is now: one sanitized fragment (a `div` with `data-nt-chat`)."""
        return to_html(self._items(), chat_id=self.chat_id, title=self.title)

    def display(self, view: Any, *, with_copy: bool = True) -> None:
        """Display the chat's view and, below it in the same cell, this copy."""
        from IPython.display import display

        display(view)  # type: ignore[no-untyped-call]
        if with_copy:
            self._html = self.html()
            display({"text/html": self._html}, raw=True, display_id=self.display_id)  # type: ignore[no-untyped-call]
            self._shown = True

    def on_event(self, event: Any, *, driving: bool) -> None:
        """Refresh when the agent pauses for a person, or a turn not run by the chat's driver ends.

        A turn the driver runs is refreshed once, when it ends (`refresh` from the chat), after the
        notices of a Stop or an error are in the transcript.
        """
        state = getattr(event, "state", None) if getattr(event, "type", "") == "status" else None
        if state in PAUSES or (state in TURN_ENDS and not driving):
            self.refresh()

    def refresh(self) -> None:
        """Replace every displayed copy, if the transcript changed since the last one was sent."""
        if not self._shown:
            return
        html = self.html()
        if html == self._html:
            return
        from IPython.display import update_display

        self._html = html
        update_display({"text/html": html}, raw=True, display_id=self.display_id)  # type: ignore[no-untyped-call]


def export(items: Iterable[Any], path: str | os.PathLike[str], *, title: str = "") -> pathlib.Path:
    """Write a transcript to `path`: a standalone HTML page (.html, .htm) or markdown (.md)."""
    target = pathlib.Path(path)
    suffix = target.suffix.lower()
    if suffix in (".html", ".htm"):
        text = to_page(items, title=title)
    elif suffix == ".md":
        text = to_markdown(items)
    else:
        raise ConfigurationError(
            f"cannot export a transcript to {target.name!r}: the name must end in .html, .htm or .md"
        )
    target.write_text(text, encoding="utf-8")
    return target
