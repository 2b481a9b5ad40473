"""Wire shapes between the kernel and the widget front end (mirrored in js/src/protocol.ts).

Synced traits carry small, bounded state (status, usage, the prompts and the
person's answers); everything that grows with the conversation or carries bytes
travels as custom messages, so no update's size grows with the history and no
file byte is ever saved into the notebook.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

PromptKind = Literal["confirm", "text", "select", "file", "generic", "approval"]
PromptStatus = Literal["pending", "answered", "skipped", "timed_out", "cancelled", "failed"]


class PromptState(TypedDict):
    """One prompt as the `prompts` trait holds it, keyed by tool_use_id."""

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
    requested_at: float
    output_schema: dict[str, Any] | None
    input_schema: dict[str, Any] | None
    """For approval cards: the schema the "edit the arguments" form is built from."""


class Answer(TypedDict, total=False):
    """What a view puts in the `answers` trait under a tool_use_id."""

    value: Any
    skip: bool
    at: float
    """When the view submitted it: a new attempt with the same value is still a new answer."""


class Item(TypedDict, total=False):
    """One transcript entry; custom messages upsert items by id."""

    id: str
    kind: Literal["user", "assistant", "tool", "notice"]
    text: str
    name: str
    input: dict[str, Any]
    executor: Literal["backend", "frontend"]
    status: Literal["running", "pending", "done", "error"]
    result: str
    is_error: bool
    duration: float
    discarded: bool
    level: Literal["info", "error"]
    retry: bool
    """An error notice that offers a Retry button."""


class ItemsMsg(TypedDict):
    type: Literal["items"]
    items: list[Item]


class DeltaMsg(TypedDict):
    type: Literal["delta"]
    id: str
    text: str


class SnapshotMsg(TypedDict):
    type: Literal["snapshot"]
    items: list[Item]
    page: int
    pages: int


class UploadAckMsg(TypedDict):
    type: Literal["upload_ack"]
    upload_id: str
    received: int
    ok: bool
    error: NotRequired[str]
    done: NotRequired[bool]


class ListingMsg(TypedDict):
    type: Literal["listing"]
    request_id: str
    path: str
    entries: list[dict[str, Any]]
    error: NotRequired[str]
