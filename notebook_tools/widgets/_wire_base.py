"""The wire protocol's common parts: the strict config every shape takes, and the view messages' base.

Part of the wire protocol whose one source is `_wire.py` (read its docstring first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

__all__ = ["STRICT", "AnyStr", "Count", "Expect", "NonEmptyStr", "ViewMessageBase", "as_is", "not_blank"]


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
