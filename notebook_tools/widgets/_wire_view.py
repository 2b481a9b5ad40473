"""Browser→kernel: every custom message a view sends, the answers it submits, and the common parts.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first). Every shape
takes the strict config (`STRICT`: unknown keys refused, no coercion); a view message is a pydantic
model on `ViewMessageBase` (handlers read attributes of a checked value, and a refusal names what
was expected), an answer a TypedDict, since it travels on as the plain dict `to_result` reads. An
MCP app's card asks for the app's HTML with `app_open` and passes the app's requests on as
`app_request` (the kernel puts each through the person's consent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, with_config
from pydantic_core import PydanticCustomError
from typing_extensions import TypeAliasType, TypedDict


def _type_first(schema: dict[str, Any]) -> None:
    # The `type` tag has a default so Python code can omit it; on the wire it is always there.
    properties = schema.get("properties", {})
    if "type" in properties:
        properties["type"].pop("default", None)
        schema["required"] = ["type", *(name for name in schema.get("required", []) if name != "type")]


STRICT = ConfigDict(strict=True, extra="forbid", use_attribute_docstrings=True, json_schema_extra=_type_first)
"""Every wire shape: no coercion ("3" is not 3, true is not 1), no unknown field."""


@dataclass(frozen=True)
class Expect:
    """What a field must be, in words: a refusal says "'seq' must be <what>"."""

    what: str


def not_blank(text: str) -> str:
    """`text` unless it is only whitespace (a pydantic error then)."""
    if not text.strip():
        raise PydanticCustomError("blank", "must not be blank")  # pydantic's own error, not a builtin
    return text


def as_is(value: Any) -> Any:
    """A validator that takes any value (its shape is checked later, by the kind it answers)."""
    return value


NonEmptyStr = Annotated[str, Field(min_length=1), Expect("a non-empty string")]
Count = Annotated[int, Field(ge=0), Expect("a whole number, 0 or more")]
AnyStr = Annotated[str, Expect("a string")]


class ViewMessageBase(BaseModel):
    """What every browser→kernel message shares: strict, closed, tagged by `type`."""

    model_config = STRICT


_ToolUseId = Annotated[str, Field(min_length=1, max_length=200), Expect("a tool call's id")]

APP_METHODS = ("tools/call", "resources/read", "ui/message", "ui/open-link", "ui/update-model-context")
"""The app requests the kernel answers (display mode, size and logs are the view's own)."""


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


class ValueAnswer(TypedDict):
    """The person's answer; its shape depends on the prompt's kind (the kernel checks it)."""

    value: Any
    """A confirm: "yes" or "no"; a text: a string; a select: a list of options; a file:
    {"uploads": [upload_id, ...]} or {"paths": [...]}; an approval: {"approved": ...}."""
    at: NotRequired[float]
    """When the view submitted it: a new attempt with the same value is still a new answer.
    Only its change matters (our front end sends milliseconds, ScriptedUser seconds)."""


@with_config(STRICT)
class SkipAnswer(TypedDict):
    """The person pressed Skip (no key skips in the widget; in the terminal, Esc or /skip)."""

    skip: Literal[True]
    reason: NotRequired[str]
    """Why, in the person's (or a renderer's) words: the model is told it."""
    at: NotRequired[float]


@with_config(STRICT)
class SuccessAck(TypedDict):
    """An ack in its long form: the front end ran the tool and this is its output."""

    status: Literal["success"]
    output: Any
    at: NotRequired[float]


@with_config(STRICT)
class FailedAck(TypedDict):
    """The front end could not show or run the prompt; the model is told why."""

    status: Literal["failed"]
    error_text: NonEmptyStr
    at: NotRequired[float]


@with_config(STRICT)
class TimeoutAck(TypedDict):
    """The front end's own timer ran out."""

    status: Literal["timeout"]
    at: NotRequired[float]


Answer = TypeAliasType("Answer", ValueAnswer | SkipAnswer | SuccessAck | FailedAck | TimeoutAck)
"""One answer to one prompt, in the `answer` message or the `answers` trait."""


# -- messages -----------------------------------------------------------------------------------


class HelloMsg(ViewMessageBase):
    """A view attached (or reloaded): the kernel answers with the transcript in snapshot pages."""

    type: Literal["hello"] = "hello"
    view_id: AnyStr = ""
    """This view's id, the same in its pings and its bye ("" for an anonymous view)."""


class PingMsg(ViewMessageBase):
    """A view is still open (every 5 s): a person may be there to answer prompts."""

    type: Literal["ping"] = "ping"
    view_id: AnyStr = ""
    """This view's id, as in its hello."""


class ByeMsg(ViewMessageBase):
    """A view closed."""

    type: Literal["bye"] = "bye"
    view_id: AnyStr = ""
    """This view's id, as in its hello."""


class RetryMsg(ViewMessageBase):
    """The Retry button of an error notice: repeat the failed request."""

    type: Literal["retry"] = "retry"


class ContinueMsg(ViewMessageBase):
    """The Continue button of a turn notice (a reply cut at `max_tokens`, a paused turn): carry on."""

    type: Literal["continue"] = "continue"


class ManualToolMsg(ViewMessageBase):
    """The person runs a tool by hand (the Tools panel or `/tool`); answered by `manual_result`."""

    type: Literal["manual_tool"] = "manual_tool"
    name: NonEmptyStr
    """The tool to run."""
    input: Annotated[dict[str, Any], Expect("an object of arguments")]
    """Its arguments (the tool checks them against its input schema)."""
    request_id: NonEmptyStr
    """Echoed in the `manual_result` reply."""


class ClearMsg(ViewMessageBase):
    """`/clear`: start a new conversation; answered by `cleared`."""

    type: Literal["clear"] = "clear"


class SendMsg(ViewMessageBase):
    """The person sent a chat message."""

    type: Literal["send"] = "send"
    text: Annotated[str, Field(min_length=1), AfterValidator(not_blank), Expect("non-empty text")]
    """What they typed (not blank)."""


class StopMsg(ViewMessageBase):
    """The Stop button: end the running turn."""

    type: Literal["stop"] = "stop"


class AnswerMsg(ViewMessageBase):
    """A prompt was answered; sent as a message, since a trait update is held back while a cell runs."""

    type: Literal["answer"] = "answer"
    tool_use_id: NonEmptyStr
    """The prompt (and the tool call) it answers."""
    answer: Annotated[
        Any,
        PlainValidator(as_is, json_schema_input_type=Answer),
        Expect("an answer: {'value': ...} or {'skip': true}"),
    ]
    """An `Answer`. Its shape is checked by the kernel against the prompt's kind, not here,
    so that a wrong answer is refused on its prompt card and the prompt stays open."""


class UploadStartMsg(ViewMessageBase):
    """A file upload begins; answered by an `upload_ack` (received 0)."""

    type: Literal["upload_start"] = "upload_start"
    upload_id: NonEmptyStr
    """Chosen by the view; names the upload in its chunks, its acks and the answer."""
    tool_use_id: NonEmptyStr
    """The pending file prompt it is for."""
    name: NonEmptyStr
    """The file's name on the person's computer."""
    size: Count
    """Its size in bytes (over `max_upload_bytes` is refused before any byte is sent)."""
    media_type: AnyStr = ""
    """Its MIME type as the browser reports it ("" when unknown)."""


class UploadChunkMsg(ViewMessageBase):
    """The next piece of an upload, as the message's one binary buffer; acked one at a time."""

    type: Literal["upload_chunk"] = "upload_chunk"
    upload_id: NonEmptyStr
    """As in its `upload_start`."""
    seq: Count
    """0, 1, 2, ...: a repeated chunk is ignored, one out of order refused."""


class ListDirMsg(ViewMessageBase):
    """The file picker lists a folder of the kernel's; answered by `listing`."""

    type: Literal["list_dir"] = "list_dir"
    request_id: NonEmptyStr
    """Echoed in the `listing` reply."""
    path: AnyStr = ""
    """A folder relative to the chat's root ("" for the root itself)."""
    accept: AnyStr = ""
    """The prompt's `accept`: only the files it takes are listed."""


class DownloadMsg(ViewMessageBase):
    """A `download_file` card asks for its file's bytes; answered by `download_chunk`s."""

    type: Literal["download"] = "download"
    request_id: NonEmptyStr
    """Echoed in every `download_chunk` reply."""
    tool_use_id: NonEmptyStr
    """The pending `download_file` prompt: the kernel reads the path its call names."""


class PluginMsg(ViewMessageBase):
    """The person expands or collapses a plugin (the Tools menu); answered by `plugin_result`.

    The model is told with the next message.
    """

    type: Literal["plugin"] = "plugin"
    name: Annotated[str, Field(min_length=1, max_length=128), Expect("a plugin's name (1 to 128 characters)")]
    """The plugin (one of the `plugins` trait)."""
    action: Annotated[Literal["expand", "collapse"], Expect('"expand" or "collapse"')]
    request_id: NonEmptyStr
    """Echoed in the `plugin_result` reply."""


class ResultPageMsg(ViewMessageBase):
    """A table view asks for rows of a kept DataFrame; answered by one `result_rows`."""

    type: Literal["result_page"] = "result_page"
    request_id: NonEmptyStr
    """Echoed in the `result_rows` reply."""
    tool_use_id: Annotated[str, Field(min_length=1, max_length=200), Expect("a tool call's id")]
    """The tool call whose table it is."""
    start: Annotated[int, Field(ge=0, le=2**53), Expect("a row number, 0 or more")]
    """The first row of the page (0-based)."""


VIEW_MODELS: tuple[type[ViewMessageBase], ...] = (
    HelloMsg,
    PingMsg,
    ByeMsg,
    RetryMsg,
    ManualToolMsg,
    ClearMsg,
    SendMsg,
    StopMsg,
    AnswerMsg,
    UploadStartMsg,
    UploadChunkMsg,
    ListDirMsg,
    DownloadMsg,
    PluginMsg,
    ResultPageMsg,
    ContinueMsg,
    AppOpenMsg,
    AppRequestMsg,
)
"""One per handler in `_messages.HANDLERS`, in its order."""

ViewMessage = TypeAliasType(
    "ViewMessage",
    Annotated[
        HelloMsg
        | PingMsg
        | ByeMsg
        | RetryMsg
        | ManualToolMsg
        | ClearMsg
        | SendMsg
        | StopMsg
        | AnswerMsg
        | UploadStartMsg
        | UploadChunkMsg
        | ListDirMsg
        | DownloadMsg
        | PluginMsg
        | ResultPageMsg
        | ContinueMsg
        | AppOpenMsg
        | AppRequestMsg,
        Field(discriminator="type"),
    ],
)
"""Every message a view sends to the kernel, told apart by `type`."""
