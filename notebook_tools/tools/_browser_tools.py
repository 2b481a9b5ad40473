# mypy: disable-error-code="empty-body"
# (schema-only tools: their bodies never run, like `_builtins`)
"""Browser-executed built-ins: tools the front end performs itself and acknowledges.

Each is a frontend tool whose renderer (in the widget's bundle, `js/src/renderers/`)
does the work without asking anything and acks what happened: `success` with an
output checked here against the tool's `output_schema` and told to the model in
words, `failed` with the browser's error, or the tool's timeout. A person can
still press Skip. Where the browser wants a gesture (a blocked pop-up, clipboard
permission, a blocked download) the card shows a button and waits for the click.

`download_file` sends bytes the kernel reads itself, from inside the chat's root
only (see `prompts/_downloads` and `widgets/_messages.download`): the model names a path, never bytes, and
a path outside the root, a hidden one, or one through a link that leaves the root
is refused and the model is told why. The person sees the file's name and size and
clicks Save before anything lands on their machine.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ._file_names import safe_name
from ._renderers import Renderer
from ._tool import tool

__all__ = [
    "BROWSER_TOOLS",
    "copy_to_clipboard",
    "download_file",
    "notify",
    "open_url",
]

_SHOWN_IN = ["widget", "jupyterlab"]
_VIA = {"type": "string", "enum": ["auto", "button"]}
_URL = {"type": "string", "pattern": "^https?://", "maxLength": 2048, "description": "The http(s) address."}


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


def _after_click(output: dict[str, Any], what: str) -> str:
    return f" (the browser {what}, so the user clicked the button)" if output["via"] == "button" else ""


def _opened(args: dict[str, Any], output: Any) -> str:
    return f"Opened {output['url']} in a new browser tab" + _after_click(output, "blocked the pop-up") + "."


def _copied(args: dict[str, Any], output: Any) -> str:
    n = output["chars"]
    return f"Copied {n} character{'s' * (n != 1)} to the user's clipboard" + _after_click(
        output, "wanted a click before writing to the clipboard"
    ) + "."  # fmt: skip


def _downloaded(args: dict[str, Any], output: Any) -> str:
    how = "The user clicked Save: " if output["via"] == "button" else ""
    return (
        f"{how}{output['filename']} ({output['bytes']:,} bytes) went to the user's browser as a download; "
        "it saves it in their downloads folder or asks them where."
    )


def _saved_headless(args: dict[str, Any]) -> dict[str, Any]:
    return {"filename": safe_name(args.get("filename") or args["path"]), "bytes": 0, "via": "button"}


def _notified(args: dict[str, Any], output: Any) -> str:
    names = {"widget": "the chat", "jupyterlab": "JupyterLab's notifications"}
    where = " and ".join(names[w] for w in output["shown_in"])
    return f"Showed the notification to the user in {where}."


@tool(
    executor="frontend",
    timeout=60,
    category="browser",
    icon="link",
    input_schema=_object(url=_URL),
    renderer=Renderer._builtin(
        "nt.open_url",
        _opened,
        "they chose not to open the URL; it was not opened.",
        lambda args: {"url": args["url"], "via": "auto"},
        _object(url={"type": "string"}, via=_VIA),
    ),
)
def open_url(url: str) -> str:
    """Open a web page for the user in a new browser tab.

    If the browser blocks the pop-up, the user is shown an "Open" button and the tool waits for the
    click (up to its timeout).

    Args:
        url: The http(s) address to open.

    Returns:
        A sentence saying the page was opened, and whether the user had to click to open it.
    """


@tool(
    executor="frontend",
    timeout=60,
    category="browser",
    icon="copy",
    renderer=Renderer._builtin(
        "nt.copy_to_clipboard",
        _copied,
        "they chose not to copy it; the clipboard was not changed.",
        lambda args: {"chars": len(args["text"]), "via": "auto"},
        _object(chars={"type": "integer", "minimum": 0}, via=_VIA),
    ),
)
def copy_to_clipboard(text: Annotated[str, Field(max_length=1_000_000)]) -> str:
    """Put text on the user's clipboard, ready to paste (a command, a query, a snippet).

    Args:
        text: The exact text to copy.

    Returns:
        A sentence saying how many characters were copied.
    """


@tool(
    executor="frontend",
    timeout=120,
    category="browser",
    icon="download",
    renderer=Renderer._builtin(
        "nt.download_file",
        _downloaded,
        "they chose not to download it.",
        _saved_headless,
        _object(filename={"type": "string"}, bytes={"type": "integer", "minimum": 0}, via=_VIA),
    ),
)
def download_file(path: str, filename: str = "") -> str:
    """Offer the user a file from the notebook's working folder to save on their machine (they click Save).

    Args:
        path: The file, relative to the working folder (hidden files and paths outside it are refused).
        filename: The name to save it under (default: the file's own name).

    Returns:
        A sentence naming the file and its size, or why it could not be sent.
    """


@tool(
    executor="frontend",
    timeout=30,
    category="browser",
    icon="bell",
    renderer=Renderer._builtin(
        "nt.notify",
        _notified,
        "they dismissed it before it was shown.",
        lambda args: {"shown_in": ["widget"]},
        _object(shown_in={"type": "array", "items": {"enum": _SHOWN_IN}, "minItems": 1}),
    ),
)
def notify(
    message: Annotated[str, Field(min_length=1, max_length=2000)],
    level: Literal["info", "success", "warning", "error"] = "info",
) -> str:
    """Show the user a short notification (a long job finished, something needs their eyes).

    Args:
        message: The text of the notification.
        level: How it looks: "info", "success", "warning" or "error".

    Returns:
        A sentence saying where the notification was shown.
    """


BROWSER_TOOLS = [open_url, copy_to_clipboard, download_file, notify]
"""The built-in browser-executed tools, for `Agent(frontend_tools=[...])`."""
