"""Kernel→browser: the custom messages the kernel sends and the synced traits' shapes.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first).
These are TypedDicts, not models: the kernel builds and merges plain dicts (an item
update is a partial dict, upserted by id), and a TypedDict says that exactly, with
optional keys that have no default to leak into the schema.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, Required

from pydantic import Field, with_config
from typing_extensions import TypeAliasType, TypedDict

from ..events._prompt import PromptKind as PromptKind
from ..events._prompt import PromptStatus as PromptStatus
from ._wire_results import ResultRowsMsg as ResultRowsMsg
from ._wire_results import Shown as Shown
from ._wire_view import STRICT, Answer, Count

# -- shapes carried inside messages and traits ----------------------------------------------------


@with_config(STRICT)
class Item(TypedDict, total=False):
    """One transcript entry; only `id` is always there, since an update carries what changed."""

    id: Required[str]
    """Stable across updates: an update is merged into the item with this id."""
    kind: Literal["user", "assistant", "tool", "notice", "prompt", "event"]
    """"prompt": a closed prompt with no tool card of its own (`nt.ask`); "event": a one-line note of
    something that happened (a plugin expanded, a skill activated, tools changed by a result)."""
    text: str
    """A message's text or a notice's (streamed assistant text grows by `delta`s)."""
    name: str
    """A tool card's tool."""
    input: dict[str, Any]
    """A tool card's arguments."""
    executor: Literal["backend", "frontend"]
    """Who runs the tool: the kernel, or the person through a prompt."""
    status: Literal["running", "pending", "done", "error"]
    result: str
    """A preview of the tool's result (what the model read)."""
    shown: Shown
    """The result's rich form when the tool returned one (a table, a diff, an image): its view."""
    is_error: bool
    duration: float
    """Seconds the tool ran."""
    discarded: bool
    """Streamed text of a request that is being retried: hidden."""
    level: Literal["info", "error"]
    """A notice's level."""
    retry: bool
    """An error notice that offers a Retry button."""
    details: str
    """An error notice's technical details (error class, HTTP status, the API's message), shown folded."""
    prompt: PromptState
    """A closed prompt (answered, skipped, timed out, ...) shown on its card. Open prompts live in
    the `prompts` trait; once one closes it moves here, so the synced (and saved) state stays small."""
    activity: Activity | None
    """What a running tool last reported (None once its call ended: the result replaces it)."""


@with_config(STRICT)
class Activity(TypedDict):
    """A running call's latest reports, sent at most about ten times a second (`Transcript`)."""

    step: str
    """Its latest step on one line, "scraping · urls_scraped 3 / urls_total 5" ("" before any)."""
    fraction: float | None
    """How far along, 0.0-1.0 (None: unknown, no bar)."""
    message: str
    """What it said with its progress."""
    preview: str
    """Its latest partial result, cut."""


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
class PromptState(TypedDict):
    """One prompt: an open one in the `prompts` trait (by tool_use_id), a closed one on its item."""

    tool_use_id: str
    name: str
    kind: PromptKind
    input: dict[str, Any]
    description: str
    status: PromptStatus
    answer: str
    """What was answered, as shown to the person (empty while pending)."""
    error: str
    """Why the last answer was refused (empty when none was)."""
    timeout: float | None
    """Seconds the prompt waits for an answer (None: no limit)."""
    requested_at: float
    """When it opened, in seconds since the epoch (the view counts the timeout down from it)."""
    output_schema: dict[str, Any] | None
    input_schema: dict[str, Any] | None
    """For approval cards the schema the "edit the arguments" form is built from; for a custom tool's
    card (kind "generic"), where its arguments' descriptions come from."""
    renderer: str
    """Kind "custom": the renderer's name (the tool's own module, from `renderers`, or a built-in
    of the widget's bundle: "nt.open_url" and the like); "" for every other kind."""


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
    usage: dict[str, int]
    """Token counts of the session (input_tokens, output_tokens, ..., requests)."""
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
        | ResultRowsMsg,
        Field(discriminator="type"),
    ],
)
"""Every message the kernel sends to its views, told apart by `type`."""
