"""MCP Apps on the wire: a tool card's app, its HTML on request, and the app's requests answered.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first). A tool whose
MCP server ships an interface (`_meta.ui.resourceUri`, a `ui://` resource) gets `app` on its card
item; the view then asks for the app's HTML with `app_open` (one `app_resource` reply: the HTML is
never in the synced, saved state) and runs it in a sandboxed frame. What the app asks of the host
(a tool call, a message as the person's own, a link to open, a resource) goes to the kernel as
`app_request` and comes back as one `app_reply`: the kernel puts each through the person's consent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict

from ._wire_base import STRICT, Expect, NonEmptyStr, ViewMessageBase

_ToolUseId = Annotated[str, Field(min_length=1, max_length=200), Expect("a tool call's id")]

APP_METHODS = ("tools/call", "resources/read", "ui/message", "ui/open-link", "ui/update-model-context")
"""The app requests the kernel answers (display mode, size and logs are the view's own)."""


@with_config(STRICT)
class AppRef(TypedDict):
    """A tool card's MCP app: which server's interface, for which of its tools."""

    server: str
    """The server's name (its plugin's)."""
    uri: str
    """The `ui://` resource holding the app's HTML."""
    tool: str
    """The tool's name on the server (what the app's `tools/call` names)."""


class AppOpenMsg(ViewMessageBase):
    """A card asks for its app's HTML and sandbox; answered by one `app_resource`."""

    type: Literal["app_open"] = "app_open"
    request_id: NonEmptyStr
    """Echoed in the reply."""
    tool_use_id: _ToolUseId
    """The tool call whose card shows the app."""


class AppRequestMsg(ViewMessageBase):
    """An app's JSON-RPC request, passed on by its card; answered by one `app_reply`."""

    type: Literal["app_request"] = "app_request"
    request_id: NonEmptyStr
    """Echoed in the reply."""
    tool_use_id: _ToolUseId
    """The tool call whose card shows the app."""
    method: Annotated[
        Literal["tools/call", "resources/read", "ui/message", "ui/open-link", "ui/update-model-context"],
        Expect("an app method the kernel answers (tools/call, resources/read, ui/message, ...)"),
    ]
    """The app's method."""
    params: Annotated[dict[str, Any], Expect("an object")]
    """Its params, as the app sent them (untrusted: the kernel checks them)."""


@with_config(STRICT)
class AppCsp(TypedDict):
    """The origins the app declared it needs, checked (`https://host[:port]`, `*.` subdomains)."""

    connectDomains: list[str]
    resourceDomains: list[str]
    frameDomains: list[str]
    baseUriDomains: list[str]


@with_config(STRICT)
class AppResourceMsg(TypedDict):
    """The reply to `app_open`: the app's HTML and the sandbox it asked for, or why there is none."""

    type: Literal["app_resource"]
    request_id: str
    tool_use_id: str
    html: str
    """The app's document (empty with `error`)."""
    csp: str
    """The Content-Security-Policy the frame enforces, built from the declared domains only."""
    allow: str
    """The frame's permissions policy (`allow`): the permissions the resource declared, nothing more."""
    prefers_border: bool | None
    """The resource's `prefersBorder` (None: it did not say)."""
    tool: dict[str, Any]
    """The tool as the server listed it (the app's host context names it)."""
    error: NotRequired[str]
    """Why the app cannot be shown (the server is gone, the resource is not an app, too big, ...)."""


@with_config(STRICT)
class AppError(TypedDict):
    """A JSON-RPC error for the app."""

    code: int
    message: str


@with_config(STRICT)
class AppReplyMsg(TypedDict):
    """The reply to `app_request`: the JSON-RPC result, or its error."""

    type: Literal["app_reply"]
    request_id: str
    tool_use_id: str
    result: NotRequired[dict[str, Any]]
    error: NotRequired[AppError]
