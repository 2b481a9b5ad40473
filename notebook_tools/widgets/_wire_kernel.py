"""Kernel→browser: the custom messages the kernel sends, the transcript's items and the synced traits.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first). These are
TypedDicts, not models: the kernel builds and merges plain dicts (an item update is a partial dict,
upserted by id), and a TypedDict says that exactly, with optional keys that have no default to leak
into the schema. An item carries its parts (a closed prompt, a running call's activity, citation
marks and sources, a server tool's links and code, a result's bounded `shown` form, a card's MCP
`app`); a table's later pages come as `result_rows`, an app's HTML as `app_resource` (never in the
synced, saved state) and its requests' answers as `app_reply`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, Required

from pydantic import Field, with_config
from typing_extensions import TypeAliasType, TypedDict

from ..events._prompt import PromptKind, PromptStatus
from ._wire_view import STRICT, Answer, Count


class ShownDisplay(TypedDict):
    """The result's display hints (see `notebook_tools.results.DisplayHints`)."""

    view: Literal["text", "markdown", "code", "table", "tree", "hidden"] | None
    """The preferred view (None: the kind's own)."""
    language: str | None
    """For `code`: the language to highlight."""
    collapsed: bool
    """Start folded: only the summary shows until the person opens it."""
    max_height: int | None
    """Pixels before the view scrolls."""


@with_config(STRICT)
class ShownFile(TypedDict):
    """A binary part of a result (an image, a PDF, any file)."""

    mime_type: str
    filename: str | None
    size: Count
    """Bytes of the whole file."""
    data: NotRequired[str]
    """The bytes as base64; absent when the file is over the size a card carries (see `note`)."""
    note: NotRequired[str]
    """Why the bytes are not here."""


@with_config(STRICT)
class Shown(TypedDict):
    """What the person sees of a tool's result: its kind's view, the data cut to a bound."""

    kind: str
    """A well-known kind (text, diff, file_content, file_list, json, table, binary) or a custom one
    ("git.status"), shown as a JSON tree."""
    summary: str | None
    """One line, always shown (also when the view is hidden or folded)."""
    mime_type: str | None
    display: ShownDisplay
    data: Any
    """The kind's fields (a table: its first page, never the whole frame)."""
    files: list[ShownFile]
    note: NotRequired[str]
    """What was cut to keep the message small (long texts, long lists, deep nesting)."""


@with_config(STRICT)
class ResultRowsMsg(TypedDict):
    """The reply to `result_page`: a page of rows, or why there is none."""

    type: Literal["result_rows"]
    request_id: str
    tool_use_id: str
    start: Count
    """The page's first row (as asked, or the error's request)."""
    index: list[Any]
    """The rows' index labels (empty with `error`)."""
    rows: list[list[Any]]
    """Cells, row by row, in the table's columns (empty with `error`)."""
    error: NotRequired[str]
    """Why there are no rows (the table is gone after a restart, the start is past the end, ...)."""


@with_config(STRICT)
class AppRef(TypedDict):
    """A tool card's MCP app: which server's interface, for which of its tools."""

    server: str
    """The server's name (its plugin's)."""
    uri: str
    """The `ui://` resource holding the app's HTML."""
    tool: str
    """The tool's name on the server (what the app's `tools/call` names)."""


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


class Item(TypedDict, total=False):
    """One transcript entry; only `id` is always there, since an update carries what changed."""

    id: Required[str]
    """Stable across updates: an update is merged into the item with this id."""
    kind: Literal[
        "user", "assistant", "tool", "notice", "prompt", "event", "thinking", "server_tool", "compaction"
    ]
    """"prompt": a closed prompt with no tool card of its own (`nt.ask`); "event": a one-line note of
    something that happened (a plugin expanded, a skill activated, tools changed by a result, a block
    this front end does not know); "thinking": the model's thinking (streamed, shown folded);
    "server_tool": a call the API ran itself (web search, web fetch, code execution, MCP, ...) with its
    result; "compaction": the earlier conversation summarized (`text` is the summary)."""
    text: str
    """A message's text or a notice's (streamed assistant text grows by `delta`s)."""
    name: str
    """A tool card's tool."""
    input: dict[str, Any]
    """A tool card's arguments."""
    executor: Literal["backend", "frontend"]
    """Who runs the tool: the kernel, or the person through a prompt."""
    status: Literal["running", "pending", "done", "error"]
    """A tool's; a thinking section's "running" while it streams, "done" once complete."""
    result: str
    """A preview of the tool's result (what the model read)."""
    app: AppRef
    """A tool whose MCP server ships an interface: the app the card shows (its HTML: `app_resource`)."""
    streaming: bool
    """An app's call whose arguments are still streaming in (`input` is as far as they go)."""
    shown: Shown
    """The result's rich form when the tool returned one (a table, a diff, an image): its view."""
    is_error: bool
    duration: float
    """Seconds the tool ran."""
    discarded: bool
    """Streamed text of a request that is being retried: hidden."""
    level: Literal["info", "warning", "error"]
    """A notice's level ("warning": the turn ended early, `TurnNotice`)."""
    explanation: str
    """A turn notice's explanation from the API (a refusal's category and reason)."""
    advice: str
    """A turn notice's advice: what to do about it."""
    can_continue: bool
    """A turn notice that offers a Continue button (the `continue` message)."""
    redacted: bool
    """A thinking section whose content the API encrypted (shown as "Thinking (redacted)")."""
    marks: list[Mark]
    """An assistant item's citation markers: footnote numbers at offsets of `text`."""
    sources: list[Source]
    """An assistant item's cited sources, numbered as its `marks` refer to them."""
    links: list[Link]
    """A server tool's result as links: web search results, a fetched page."""
    execution: Execution
    """A code execution's code and output."""
    found: list[str]
    """A tool search's result: the names of the tools it found."""
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
class PromptPreview(TypedDict):
    """What an approval card's call will do (its tool's `approval_preview`), shown as plain text."""

    kind: Literal["diff", "command", "text"]
    """"diff": lines starting "+" and "-" are added and removed; "command": shell input; "text": as it is."""
    text: str


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
    scope: str
    """An approval card whose tool has scopes: what "remember for calls like this" covers ("" for
    other cards: no such choice)."""
    reasons: list[str]
    """An approval card: why this call asks (empty when the tool gives no reasons)."""
    preview: PromptPreview | None
    """An approval card whose tool previews its calls: the diff or command that will run, shown above
    the arguments (None for other cards, and once the prompt is closed)."""
    editable: bool
    """An approval card: whether it offers to edit the arguments (false for an agent that takes no
    edited input, an ACP agent)."""


@with_config(STRICT)
class Mark(TypedDict):
    """A footnote marker: after `at` characters of the item's text, source `n` is cited."""

    at: Annotated[int, Field(ge=0)]
    n: Annotated[int, Field(ge=1)]
    """The source's number in `sources`."""
    quote: str
    """The text cited from the source (the marker's tooltip)."""


@with_config(STRICT)
class Source(TypedDict):
    """A cited source: a web page (http(s) `url`) or a document (title only)."""

    n: Annotated[int, Field(ge=1)]
    title: str
    url: str
    """The page's URL as the API gave it; "" for a document. Only http(s) URLs become links."""
    quote: str
    """The first text cited from it."""


@with_config(STRICT)
class Link(TypedDict):
    """A page a server tool found or fetched."""

    title: str
    url: str
    """As the API gave it; only http(s) URLs become links."""
    detail: str
    """A search result's age ("2 days ago"), a fetched page's type, or ""."""


@with_config(STRICT)
class Execution(TypedDict):
    """Code the API ran (code execution, bash, the text editor) and what came out."""

    code: str
    """The code or command ("" until the call's input is known)."""
    language: str
    """How to colour `code` ("python", "bash", "" for none)."""
    stdout: str
    stderr: str
    return_code: int | None
    """None until it ran (or when the tool gives none, like the text editor)."""


@with_config(STRICT)
class UsageCounts(TypedDict, total=False):
    """Token counts, server-tool requests and estimated cost (`session._state.Usage`)."""

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    server_tool_use: dict[str, int]
    """Server-tool requests by kind (`web_search_requests`, ...)."""
    requests: int
    cost_usd: float
    """Estimated cost in US dollars (`api/model_prices.json`)."""
    unpriced_requests: int
    """Requests whose model has no price (not in `cost_usd`)."""
    scripted_requests: int
    """Requests a scripted model answered: estimated tokens, no cost."""


@with_config(STRICT)
class UsageState(UsageCounts, total=False):
    """The `usage` trait: the session's counts, and this turn's and the context window's fill."""

    turn: UsageCounts | None
    """This turn's counts (None before the first response of a session shown)."""
    context_tokens: int
    """Input tokens of the last request: how full the context window is."""
    context_window: int | None
    """The model's window (None when the prices file does not know the model: no meter)."""


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
