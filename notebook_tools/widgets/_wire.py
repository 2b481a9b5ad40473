"""The wire protocol between the kernel and the widget's views: its one source.

Every custom message, both ways, and the synced traits' shapes are defined here
once (browser→kernel in `_wire_view.py`, kernel→browser and the traits in
`_wire_kernel.py`); the front end's types are generated from their JSON Schema:

    _wire_view.py + _wire_kernel.py
      └─ json_schema() ──> js/src/generated/protocol.schema.json   (committed)
           └─ json-schema-to-typescript ──> js/src/generated/protocol.ts   (committed)
                └─ js/src/wire/protocol.ts re-exports it under the names the views use

`cd js && npm run gen` does both steps; `npm run build`, `typecheck` and `test`
run it first. Both files are committed so the JS builds without Python: `./dev`
builds the JS before it creates or updates `.venv`, so `gen` refreshes the schema
from this module only when `.venv/bin/python` (or $NOTEBOOK_TOOLS_PYTHON) can
import it, and otherwise compiles the committed schema, giving the committed .ts
again. `tests/widgets/test_wire.py` fails when either committed file differs from what
these modules give, and says to run `cd js && npm run gen`.

Incoming messages are untrusted: `parse_view_message` checks one before any
handler runs and, instead of raising, says what is wrong with it in a short
reason for the widget to show. Outgoing ones are checked by `kernel_message`,
which raises: a malformed kernel message is a bug.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

import pydantic
from pydantic import TypeAdapter, with_config
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from typing_extensions import TypedDict

from ..events._prompt import PromptKind, PromptStatus
from ._wire_kernel import (
    AppRef,
    AppReplyMsg,
    AppResourceMsg,
    ClearedMsg,
    DeltaMsg,
    DownloadChunkMsg,
    Entry,
    Item,
    ItemsMsg,
    KernelMessage,
    ListingMsg,
    ManualResultMsg,
    PluginInfo,
    PluginResultMsg,
    PromptState,
    RenderersMsg,
    ResultRowsMsg,
    Shown,
    SkillInfo,
    SnapshotMsg,
    ToolInfo,
    Traits,
    UploadAckMsg,
)
from ._wire_view import (
    STRICT,
    VIEW_MODELS,
    Answer,
    AnswerMsg,
    AppOpenMsg,
    AppRequestMsg,
    ByeMsg,
    ClearMsg,
    ContinueMsg,
    DownloadMsg,
    Expect,
    FailedAck,
    HelloMsg,
    ListDirMsg,
    ManualToolMsg,
    PingMsg,
    PluginMsg,
    ResultPageMsg,
    RetryMsg,
    SendMsg,
    SkipAnswer,
    StopMsg,
    SuccessAck,
    TimeoutAck,
    UploadChunkMsg,
    UploadStartMsg,
    ValueAnswer,
    ViewMessage,
    ViewMessageBase,
)

__all__ = [
    "Answer",
    "AnswerMsg",
    "AppOpenMsg",
    "AppRef",
    "AppReplyMsg",
    "AppRequestMsg",
    "AppResourceMsg",
    "ByeMsg",
    "ClearMsg",
    "ClearedMsg",
    "ContinueMsg",
    "DeltaMsg",
    "DownloadChunkMsg",
    "DownloadMsg",
    "Entry",
    "FailedAck",
    "HelloMsg",
    "Item",
    "ItemsMsg",
    "KernelMessage",
    "ListDirMsg",
    "ListingMsg",
    "ManualResultMsg",
    "ManualToolMsg",
    "PingMsg",
    "PluginInfo",
    "PluginMsg",
    "PluginResultMsg",
    "PromptKind",
    "PromptState",
    "PromptStatus",
    "RenderersMsg",
    "ResultPageMsg",
    "ResultRowsMsg",
    "RetryMsg",
    "SendMsg",
    "Shown",
    "SkillInfo",
    "SkipAnswer",
    "SnapshotMsg",
    "StopMsg",
    "SuccessAck",
    "TimeoutAck",
    "ToolInfo",
    "Traits",
    "UploadAckMsg",
    "UploadChunkMsg",
    "UploadStartMsg",
    "ValueAnswer",
    "ViewMessage",
    "json_schema",
    "kernel_message",
    "parse_view_message",
    "schema_text",
]

MAX_REASON = 300
"""A reason names the message type and the first bad field; garbage never makes it long."""

_BY_TYPE: dict[str, type[ViewMessageBase]] = {
    model.model_fields["type"].default: model for model in VIEW_MODELS
}
_EXPECT: dict[type[ViewMessageBase], dict[str, str]] = {
    model: {
        name: meta.what
        for name, info in model.model_fields.items()
        for meta in info.metadata
        if isinstance(meta, Expect)
    }
    for model in VIEW_MODELS
}
_KERNEL: TypeAdapter[Any] = TypeAdapter(KernelMessage)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_view_message(content: object) -> tuple[ViewMessage | None, str]:
    """Check a custom message from a view; never raises.

    Returns:
        (the message, "") when it is valid, else (None, a short reason naming the message
        type and its first bad field, e.g. "answer: 'tool_use_id' must be a non-empty string").
    """
    try:
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            return None, "a message must be an object with a 'type'"
        kind: str = content["type"]
        model = _BY_TYPE.get(kind)
        if model is None:
            return None, _clip(f"unknown message type {_clip(kind)!r}", MAX_REASON)
        try:
            return cast("ViewMessage", model.model_validate(content)), ""
        except pydantic.ValidationError as exc:
            return None, _clip(_reason(model, kind, exc.errors(include_url=False)[0]), MAX_REASON)
    except Exception as exc:  # a message must never raise into the kernel, whatever it holds
        return None, f"the message could not be read: {type(exc).__name__}"


def _reason(model: type[ViewMessageBase], kind: str, error: Any) -> str:
    loc = error["loc"]
    field = _clip(str(loc[0])) if loc else ""
    if error["type"] == "extra_forbidden" and len(loc) == 1:
        return f"{kind}: unexpected field {field!r}"
    expect = _EXPECT[model].get(field)
    if expect is not None:
        return f"{kind}: {field!r} must be {expect}"
    return f"{kind}: {field!r}: {error['msg']}"


def kernel_message(message: KernelMessage | Mapping[str, Any]) -> dict[str, Any]:
    """Check a message the kernel is about to send; returns it as a plain dict.

    Raises:
        pydantic.ValidationError: it does not match the protocol (a bug in the kernel).
    """
    return dict(_KERNEL.validate_python(message))


@with_config(STRICT)
class _Protocol(TypedDict):
    view: ViewMessage
    kernel: KernelMessage
    traits: Traits


class _ForTypeScript(GenerateJsonSchema):
    """Standard JSON Schema, shaped so json-schema-to-typescript reads it right."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False  # a titled schema becomes a named type; a field needs none

    def any_schema(self, schema: Any) -> JsonSchemaValue:
        return {"tsType": "unknown"}  # else a described `{}` is read as an object


_REF = "#/$defs/{model}"
_DESCRIPTIONS = {
    "ViewMessage": "Every message a view sends to the kernel, told apart by `type`.",
    "KernelMessage": "Every message the kernel sends to its views, told apart by `type`.",
    "Answer": "One answer to one prompt, in the `answer` message or the `answers` trait.",
}


def json_schema() -> dict[str, Any]:
    """One JSON Schema document: `$defs` for every message, both unions and the traits (keys sorted).

    Its root, `WireProtocol`, names the three things on the wire: `view` (any `ViewMessage`),
    `kernel` (any `KernelMessage`) and `traits` (the synced `Traits`).
    """
    document = TypeAdapter(_Protocol).json_schema(schema_generator=_ForTypeScript, ref_template=_REF)
    for name, definition in document["$defs"].items():
        if name in _DESCRIPTIONS:
            definition.update(title=name, description=_DESCRIPTIONS[name])
        for field in definition.get("properties", {}).values():
            if "$ref" in field and "description" in field:  # else the type takes the field's description
                field["allOf"] = [{"$ref": field.pop("$ref")}]
    document.update(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "WireProtocol",
            "description": "What crosses the widget's comm (notebook_tools/widgets/_wire.py).",
        }
    )
    result: dict[str, Any] = json.loads(json.dumps(document, sort_keys=True))
    return result


def schema_text() -> str:
    """`json_schema()` as the committed js/src/generated/protocol.schema.json holds it."""
    return json.dumps(json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
