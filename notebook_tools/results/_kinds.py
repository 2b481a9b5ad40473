"""Semantic tool results: well-known kinds with their own views, custom kinds with display hints.

A `RichResult` has two faces: what the person sees (its kind's view, from `kind`, `data` and
`display`) and what the model receives (`model_content`, compact, within a character budget).
Binary content (images, PDFs, files) travels as `Binary` items next to the data.
"""

from __future__ import annotations

import base64
import functools
import re
from typing import Any, Literal, Required

import pydantic
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

__all__ = [
    "WELL_KNOWN_KINDS",
    "Binary",
    "DisplayHints",
    "RichResult",
    "is_valid_kind",
    "is_well_known",
]

WELL_KNOWN_KINDS = frozenset({"text", "diff", "file_content", "file_list", "json", "table", "binary"})
"""Kinds every front end has a specialised view for (`table`: a DataFrame or Series; `binary`: files)."""

_KIND_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


def is_valid_kind(kind: object) -> bool:
    """Whether `kind` is a result kind.

    Lowercase letters, digits and `_`, dots between namespaces, starting with a letter
    (`git.status`, `mycompany.report`; not `Invalid`, `.x`, `a..b`).
    """
    return isinstance(kind, str) and len(kind) <= 100 and _KIND_RE.match(kind) is not None


def is_well_known(kind: object) -> bool:
    """Whether `kind` is one of `WELL_KNOWN_KINDS`."""
    return kind in WELL_KNOWN_KINDS


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Entry(TypedDict, total=False):
    name: Required[str]
    size: int
    is_dir: bool


class _Text(TypedDict):
    content: str


class _Diff(TypedDict, total=False):
    path: Required[str]
    original: Required[str]
    modified: Required[str]
    is_new: bool
    bytes_written: int


class _FileContent(TypedDict, total=False):
    path: Required[str]
    content: Required[str]
    size: int


class _FileList(TypedDict, total=False):
    path: Required[str]
    files: Required[list[_Entry]]
    count: int


class _Json(TypedDict):
    data: Any


class _Table(TypedDict, total=False):
    columns: Required[list[str]]
    rows: Required[list[list[Any]]]
    shape: Required[list[int]]
    dtypes: list[str]
    index: list[Any]
    start: int
    page_size: int
    model_text: str


_SHAPES: dict[str, Any] = {
    "text": _Text,
    "diff": _Diff,
    "file_content": _FileContent,
    "file_list": _FileList,
    "json": _Json,
    "table": _Table,
}
"""The data each well-known kind needs: its view and its model text rely on these fields."""


@functools.cache
def _shape(kind: str) -> pydantic.TypeAdapter[Any]:
    """The validator of a well-known kind's data, built on first use (import stays quick)."""
    return pydantic.TypeAdapter(_SHAPES[kind])


"""The data each well-known kind needs: its view and its model text rely on these fields."""


class DisplayHints(_Model):
    """How the person would like a result shown; a front end may do less, never something else."""

    view: Literal["text", "markdown", "code", "table", "tree", "hidden"] | None = None
    """The preferred view (None: the kind's own)."""
    language: str | None = Field(default=None, max_length=40, pattern=r"^[A-Za-z0-9_+#.-]*$")
    """For `code`: the language to highlight."""
    collapsed: bool = False
    """Start folded (the summary shows)."""
    max_height: int | None = Field(default=None, ge=40, le=10_000)
    """Pixels before the view scrolls."""


class Binary(_Model):
    """Bytes with a type: an image, a PDF, any file."""

    mime_type: str = Field(pattern=r"^[a-z0-9.+-]+/[a-z0-9.+-]+$", max_length=100)
    data: bytes
    filename: str | None = Field(default=None, max_length=255)

    @pydantic.field_serializer("data")
    def _base64(self, data: bytes) -> str:
        return base64.b64encode(data).decode()

    @pydantic.field_validator("data", mode="before")
    @classmethod
    def _from_base64(cls, value: Any) -> Any:
        if isinstance(value, str):  # JSON carries bytes as base64
            try:
                return base64.b64decode(value, validate=True)
            except ValueError as exc:
                raise ValueError(f"data is not base64: {exc}") from None
        return value


class RichResult(_Model):
    """A tool result with a kind: the person sees its view, the model a compact form."""

    kind: str
    """A well-known kind (`text`, `diff`, `file_content`, `file_list`, `json`, `table`, `binary`) or
    your own (`git.status`); an unknown kind is shown as a JSON tree."""
    data: Any = None
    """The kind's fields (JSON-serialisable)."""
    summary: str | None = Field(default=None, max_length=2_000)
    """One line for compact display, and the first line the model reads."""
    mime_type: str | None = Field(default=None, max_length=100)
    display: DisplayHints = Field(default_factory=DisplayHints)
    files: list[Binary] = Field(default_factory=list)
    """Binary content: images (the model sees them), PDFs (a document block), other files (named)."""

    @pydantic.field_validator("kind")
    @classmethod
    def _kind_is_valid(cls, kind: str) -> str:
        if not is_valid_kind(kind):
            raise ValueError(
                f"{kind!r} is not a result kind: use lowercase letters, digits and '_', dots between "
                "namespaces, starting with a letter (e.g. 'git.status')"
            )
        return kind

    @pydantic.model_validator(mode="after")
    def _well_known_data_fits(self) -> RichResult:
        if self.kind in _SHAPES:
            try:
                _shape(self.kind).validate_python(self.data)
            except pydantic.ValidationError as exc:
                where = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'data'}: {e['msg']}" for e in exc.errors()[:3]
                )
                raise ValueError(
                    f"the data of a {self.kind!r} result does not fit the kind: {where}"
                ) from None
        return self

    @pydantic.field_validator("data")
    @classmethod
    def _data_is_json(cls, data: Any) -> Any:
        import json

        try:
            json.dumps(data, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"data must be JSON-serialisable: {exc}") from None
        return data
