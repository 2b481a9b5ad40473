"""Kernel→browser: the custom messages the kernel sends and the synced traits' shapes.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first).
These are TypedDicts, not models: the kernel builds and merges plain dicts (an item
update is a partial dict, upserted by id), and a TypedDict says that exactly, with
optional keys that have no default to leak into the schema.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypeAliasType, TypedDict

from ..events._prompt import PromptKind as PromptKind
from ..events._prompt import PromptStatus as PromptStatus
from ._wire_apps import AppReplyMsg, AppResourceMsg
from ._wire_base import STRICT, Count
from ._wire_items import Activity as Activity
from ._wire_items import Item as Item
from ._wire_items import PromptState as PromptState
from ._wire_items import UsageState
from ._wire_results import ResultRowsMsg as ResultRowsMsg
from ._wire_results import Shown as Shown
from ._wire_view import Answer

# -- shapes carried inside messages and traits ----------------------------------------------------


@with_config(STRICT)
class Entry(TypedDict):
    """One file or folder in a `listing`."""

    name: str
    path: str
    """Relative to the chat's root, with "/" separators."""
    is_dir: bool
    size: int
    """Bytes (0 for a folder)."""
    media_type: str
    """What its name implies ("" for a folder)."""


@with_config(STRICT)
class ToolInfo(TypedDict):
    """A tool the person may run by hand."""

    name: str
    description: str
    input_schema: dict[str, Any]


@with_config(STRICT)
class SkillInfo(TypedDict):
    """A skill of a plugin."""

    name: str
    description: str
    active: bool


@with_config(STRICT)
class PluginInfo(TypedDict):
    """A plugin of the session, as the Tools menu shows it."""

    name: str
    description: str
    expanded: bool
    """Its tools are offered to the model (else only its container is)."""
    tools: list[str]
    """Its tools' names (those a person may run by hand are in `tools` too)."""
    skills: list[SkillInfo]


@with_config(STRICT)
class Traits(TypedDict):
    """The Chat widget's synced traits (the front end's `Model`)."""

    mode: Literal["chat", "ask"]
    """"chat" with an agent; "ask" for prompts only (`nt.ask`)."""
    status: str
    status_detail: str
    busy: bool
    usage: UsageState
    """Token counts and cost of the session, of this turn, and how full the context window is."""
    prompts: dict[str, PromptState]
    """The open prompts only (answered ones are on their transcript items)."""
    answers: dict[str, Answer]
    """A view may answer here instead of by `answer` message (ours never does)."""
    error: str
    """The last refused message or answer ("" once dismissed)."""
    notice: str
    max_upload_bytes: int
    tools: list[ToolInfo]
    plugins: list[PluginInfo]
    """The plugins of the session (empty without plugins)."""


# -- messages -------------------------------------------------------------------------------------


@with_config(STRICT)
class ItemsMsg(TypedDict):
    """Transcript items added or changed."""

    type: Literal["items"]
    items: list[Item]


@with_config(STRICT)
class DeltaMsg(TypedDict):
    """More streamed text for an assistant item."""

    type: Literal["delta"]
    id: str
    text: str
    """Appended to the item's text."""


@with_config(STRICT)
class SnapshotMsg(TypedDict):
    """The whole transcript for a view that said hello, in pages of about 1 MiB."""

    type: Literal["snapshot"]
    items: list[Item]
    page: Count
    """0, 1, ... of `pages`."""
    pages: Annotated[int, Field(ge=1)]


@with_config(STRICT)
class UploadAckMsg(TypedDict):
    """The reply to `upload_start` and to each `upload_chunk`."""

    type: Literal["upload_ack"]
    upload_id: str
    received: Count
    """Bytes received so far."""
    ok: bool
    error: NotRequired[str]
    """Why the upload was refused (when not ok)."""
    done: NotRequired[bool]
    """Every byte arrived: the file is saved."""


@with_config(STRICT)
class ListingMsg(TypedDict):
    """The reply to `list_dir`."""

    type: Literal["listing"]
    request_id: str
    path: str
    folder: NotRequired[str]
    """The folder's full path on the kernel's machine (absent when it could not be listed)."""
    entries: list[Entry]
    """Folders first, then the files `accept` takes; hidden ones and links out of the root are left out."""
    other: NotRequired[int]
    """Files the filter left out."""
    hidden: NotRequired[int]
    """Hidden files and links out of the root, never offered."""
    error: NotRequired[str]
    """Why the folder could not be listed (entries is then empty)."""


@with_config(STRICT)
class ManualResultMsg(TypedDict):
    """The reply to `manual_tool`."""

    type: Literal["manual_result"]
    request_id: str
    ok: bool
    """The tool ran (its result may still be an error)."""
    is_error: NotRequired[bool]
    """When it ran: whether its result is an error."""
    error: NotRequired[str]
    """When it did not run: why."""


@with_config(STRICT)
class PluginResultMsg(TypedDict):
    """The reply to `plugin`."""

    type: Literal["plugin_result"]
    request_id: str
    ok: bool
    error: NotRequired[str]
    """Why the plugin was not changed (busy, unknown name)."""


@with_config(STRICT)
class ClearedMsg(TypedDict):
    """The conversation was cleared: views empty their transcript."""

    type: Literal["cleared"]


@with_config(STRICT)
class RenderersMsg(TypedDict):
    """The modules of the chat's custom renderers, sent to a view that said hello (before its snapshot).

    A message, not a synced trait: the sources are not saved in the notebook with the widget state.
    """

    type: Literal["renderers"]
    renderers: dict[str, str]
    """Tool name -> the ES module's source."""


@with_config(STRICT)
class DownloadChunkMsg(TypedDict):
    """A piece of a `download`'s file as the message's one binary buffer (none when `error`)."""

    type: Literal["download_chunk"]
    request_id: str
    seq: Count
    last: bool
    """The file is complete (or refused)."""
    filename: str
    """What to save it as."""
    size: Count
    """The whole file's bytes."""
    media_type: str
    error: NotRequired[str]
    """Why the file cannot be sent (outside the root, hidden, missing, too big)."""


KernelMessage = TypeAliasType(
    "KernelMessage",
    Annotated[
        ItemsMsg
        | DeltaMsg
        | SnapshotMsg
        | UploadAckMsg
        | ListingMsg
        | ManualResultMsg
        | PluginResultMsg
        | ClearedMsg
        | RenderersMsg
        | DownloadChunkMsg
        | ResultRowsMsg
        | AppResourceMsg
        | AppReplyMsg,
        Field(discriminator="type"),
    ],
)
"""Every message the kernel sends to its views, told apart by `type`."""
