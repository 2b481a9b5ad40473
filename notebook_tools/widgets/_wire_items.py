"""Kernel→browser: the shapes of transcript items and the state they carry.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first): an item is a
TypedDict (an update is a partial dict, upserted by id), as are its parts (a closed prompt, a running
call's activity, citation marks and sources, a server tool's links and code) and the `usage` trait.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Required

from pydantic import Field, with_config
from typing_extensions import TypedDict

from ..events._prompt import PromptKind, PromptStatus
from ._wire_apps import AppRef
from ._wire_base import STRICT
from ._wire_results import Shown

__all__ = [
    "Activity",
    "Execution",
    "Item",
    "Link",
    "Mark",
    "PromptState",
    "Source",
    "UsageCounts",
    "UsageState",
]


@with_config(STRICT)
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
    """A tool whose MCP server ships an interface: the app the card shows (`_wire_apps.py`)."""
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


@with_config(STRICT)
class UsageState(UsageCounts, total=False):
    """The `usage` trait: the session's counts, and this turn's and the context window's fill."""

    turn: UsageCounts | None
    """This turn's counts (None before the first response of a session shown)."""
    context_tokens: int
    """Input tokens of the last request: how full the context window is."""
    context_window: int | None
    """The model's window (None when the prices file does not know the model: no meter)."""
