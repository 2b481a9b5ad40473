"""The chat's static copy: its transcript as HTML in the notebook, for viewers without a kernel.

A widget is nothing without its kernel: on GitHub, nbviewer or in `jupyter nbconvert --to html`
the cell that showed a chat would show no conversation. So that cell also gets a sanitized HTML copy
of the transcript (`_export.to_html`), one `display_data` output with a display id, replaced when a
turn ends (one update per ended turn, never per streamed token). A live view hides the copy of its
own chat (`js/src/chat/staticCopy.ts`, told the chat's id by the class `nt-chat-<id>` on the view), so
where the widget runs the conversation shows once, and takes the copy's content out of the page: the
copy lives in the notebook's model, which JupyterLab saves, not twice in the page (issue 40). The
kernel keeps sending it at each turn's end rather than when the notebook is saved or the kernel goes
away: it never hears of a save, and a kernel that dies sends nothing.

The copy's output also names its chat under `COPY_MIME`. JupyterLab and Notebook 7 render that type
with this project's extension (`js/src/lab/`, installed with the package) instead of the HTML: it
draws the copy only where no live view shows the chat, so a live page never sanitizes and lays out
the HTML at all. Viewers that do not know the type (GitHub, nbviewer, nbconvert, VS Code) show the HTML.
"""

from __future__ import annotations

import os
import pathlib
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from .._exceptions import ConfigurationError
from ._export import to_html, to_markdown, to_page

__all__ = ["COPY_MIME", "TURN_ENDS", "StaticCopy", "export", "view_bundle"]

PAUSES = frozenset({"awaiting_frontend_tools", "awaiting_approval"})
"""The statuses of a turn paused for a person: the copy shows what is asked."""
TURN_ENDS = PAUSES | {"idle", "stopped", "error"}
"""The statuses that end a turn (or pause it for a person): the copy is brought up to date."""

CHAT_CLASS = "nt-chat-"
"""The view's class `nt-chat-<id>` names the chat whose static copy it hides."""
COPY_MIME = "application/vnd.notebook-tools.copy"
"""The copy's own type, its value `nt-chat-<id>`: rendered in JupyterLab by this project's extension."""


class StaticCopy:
    """The HTML copy of one chat's transcript, in every cell that displayed the chat."""

    def __init__(
        self, items: Callable[[], Iterable[Any]], *, title: str = "", summary: Callable[[], str] = str
    ) -> None:
        self.chat_id = uuid.uuid4().hex
        self._summary = summary
        """The chat's one-line `text/plain`, carried under the copy's HTML (see `view_bundle`)."""
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

        if not with_copy:
            display(view)  # type: ignore[no-untyped-call]
            return
        data, metadata = view_bundle(view)
        display(data, metadata=metadata, raw=True)  # type: ignore[no-untyped-call]
        self._html = self.html()
        display(self._bundle(), raw=True, display_id=self.display_id)  # type: ignore[no-untyped-call]
        self._shown = True

    def _bundle(self) -> dict[str, str]:
        return {"text/html": self._html, "text/plain": self._summary(), COPY_MIME: self.view_class}

    def on_event(self, event: Any, *, driving: bool) -> None:
        """Refresh when the agent pauses for a person, a prompt closes, or a turn not run by the driver ends.

        A turn the driver runs is refreshed once, when it ends (`refresh` from the chat), after the
        notices of a Stop or an error are in the transcript. A prompt answered while others still
        wait refreshes at once: JupyterLab saves the copy as last sent, and a notebook saved
        mid-turn must not show a given answer as pending.
        """
        kind = getattr(event, "type", "")
        state = getattr(event, "state", None) if kind == "status" else None
        closed = kind == "prompt_changed" and getattr(event.prompt, "status", "pending") != "pending"
        if closed or state in PAUSES or (state in TURN_ENDS and not driving):
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
        update_display(self._bundle(), raw=True, display_id=self.display_id)  # type: ignore[no-untyped-call]


def view_bundle(view: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The view's output when a static copy follows it: the widget alone, no `text/plain`.

    Where the widget cannot load, a front end shows the best other type it may: an untrusted
    notebook in JupyterLab (one cloned or downloaded) shows `text/plain` (it shows no output at all
    for a bundle that holds only the widget), and so do other viewers. The one-line summary nbval
    compares rides on the copy instead, under its HTML, which every viewer prefers to it.
    """
    bundle = view._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    return {k: v for k, v in data.items() if k != "text/plain"}, dict(metadata or {})


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
