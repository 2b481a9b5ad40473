"""`Renderer`: a front-end module of your own that shows (or performs) a frontend tool.

A frontend tool without one gets the widget's text box. With one, the front end
loads the module (an ES module, as anywidget's `_esm`) and calls its exported
function with the call's input, an element to render into, the theme, and
`submit(answer)` / `skip(reason)` / `fail(error)`. The answer goes through the
same kernel checks as any other (the tool's `output_schema`). A renderer that
performs an action itself and submits what happened, without asking anything,
is a browser-executed tool: the built-ins in `_browser_tools` are written so,
with their modules in the widget's bundle instead of a source of their own.
Nothing here imports Jupyter.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from typing import Any

from .._exceptions import ToolDefinitionError

__all__ = ["MAX_RENDERER_BYTES", "Renderer"]

MAX_RENDERER_BYTES = 512 * 1024
"""A renderer's module travels to every view on hello; a bigger one belongs in a package."""

Describe = Callable[[dict[str, Any], Any], str]


class Renderer:
    """A front-end module that renders a frontend tool's prompt, registered by the tool's name.

    Args:
        esm: The module's JavaScript source, or a path to a `.js`/`.mjs` file (read again each
            time a view attaches, so an edit shows when the page reloads). It
            exports `default` (or `render`): a function of `{input, el, theme, submit, skip,
            fail}`; it may return a promise (a rejected one fails the call).

    Example:
        `nt.Renderer(esm="export default ({input, el, submit}) => { ... }")`
    """

    def __init__(self, esm: str | os.PathLike[str]) -> None:
        if isinstance(esm, os.PathLike) or _looks_like_path(esm):
            path = pathlib.Path(esm.strip() if isinstance(esm, str) else esm)
            if not path.is_file():
                raise ToolDefinitionError(
                    f"renderer module {str(path)!r} is not a file (a one-line string ending in .js or "
                    ".mjs names a module file; pass the module's source with its code in it)"
                )
            self.path: pathlib.Path | None = path.resolve()
            self._source = ""
        elif isinstance(esm, str) and esm.strip():
            self.path = None
            self._source = esm
        else:
            raise ToolDefinitionError("a Renderer needs its module: JavaScript source or a file path")
        self.builtin = ""
        """The key of a renderer in the widget's own bundle ("nt.open_url"); empty for yours."""
        self.describe: Describe | None = None
        """Turns a built-in's checked output into what the model reads (yours send their answer)."""
        self.skipped = ""
        """What the model reads when the person skips (empty: the usual skip text)."""
        self.headless: Callable[[dict[str, Any]], Any] | None = None
        """The output a scripted user acks with when it plays the browser (built-ins only)."""
        self.output_schema: dict[str, Any] | None = None
        """A built-in's ack output (checked before `describe`; the model reads the sentence)."""
        self.validator: Any = None
        self.source  # noqa: B018 -- read (and size-checked) now, so a bad file fails at declaration

    @classmethod
    def _builtin(
        cls,
        key: str,
        describe: Describe,
        skipped: str,
        headless: Callable[[dict[str, Any]], Any],
        output_schema: dict[str, Any],
    ) -> Renderer:
        renderer = cls.__new__(cls)
        renderer.path, renderer._source, renderer.builtin = None, "", key
        renderer.describe, renderer.skipped, renderer.headless = describe, skipped, headless
        renderer.output_schema, renderer.validator = output_schema, None
        return renderer

    @property
    def source(self) -> str:
        """The module's source ("" for a built-in, whose module is in the widget's bundle)."""
        if self.builtin:
            return ""
        try:
            text = self.path.read_text(encoding="utf-8") if self.path is not None else self._source
        except UnicodeDecodeError as exc:
            raise ToolDefinitionError(
                f"renderer module {str(self.path)!r} is not UTF-8 text: {exc}"
            ) from None
        if len(text.encode()) > MAX_RENDERER_BYTES:
            raise ToolDefinitionError(
                f"a renderer module may be at most {MAX_RENDERER_BYTES:,} bytes; bundle less into it"
            )
        return text

    def key(self, tool_name: str) -> str:
        """The name the front end finds this renderer under: yours by tool name, built-ins by theirs."""
        return self.builtin or tool_name

    def __repr__(self) -> str:
        if self.builtin:
            return f"Renderer(builtin={self.builtin!r})"
        where = f"esm={str(self.path)!r}" if self.path is not None else "esm=<source>"
        return f"Renderer({where})"


def _looks_like_path(esm: object) -> bool:
    # As anywidget reads `_esm`: a one-line string ending in .js/.mjs is a path (a missing one is an error).
    return isinstance(esm, str) and "\n" not in esm.strip() and esm.strip().endswith((".js", ".mjs"))
