"""Write the JSON Schemas pydantic generates for nested tool-argument models into js/test-corpus/.

Part of the form engine's corpus (js/src/form/corpus.test.ts): the shapes pydantic emits for real
tool signatures ($defs + $ref, `anyOf [T, null]` for every Optional, Literal enums, discriminated
unions, dict maps, tuples, constrained types, date/email/URL formats), plus the notebook_tools
built-ins and a few of the anthropic SDK's own request types. Run with the project's venv:

    .venv/bin/python tests/support/corpus/make_pydantic_schemas.py
"""

from __future__ import annotations

import datetime as dt
import enum
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import anthropic.types as at
from pydantic import AnyUrl, BaseModel, ConfigDict, Field, TypeAdapter, conint, constr

import notebook_tools.tools._builtins as builtins

# EmailStr needs the optional email-validator package; this is the schema it emits.
EmailStr = Annotated[str, Field(json_schema_extra={"format": "email"})]

OUT = Path(__file__).resolve().parents[3] / "js" / "test-corpus"
PYDANTIC = f"pydantic {__import__('pydantic').VERSION} model_json_schema() of a nested tool-argument model"


class Color(enum.StrEnum):
    red = "red"
    green = "green"
    blue = "blue"


class Address(BaseModel):
    street: str
    city: str
    postcode: Annotated[str, Field(pattern=r"^[0-9A-Z -]{3,10}$")]
    country: str = "GB"


class Person(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=80, description="Full name")]
    email: EmailStr
    age: Annotated[int, Field(ge=0, le=150)] | None = None
    address: Address
    previous: list[Address] = []


class CreateContacts(BaseModel):
    """Create contacts in the address book."""

    people: Annotated[list[Person], Field(min_length=1, max_length=20)]
    dry_run: bool = False


class Filter(BaseModel):
    column: str
    op: Literal["==", "!=", "<", "<=", ">", ">=", "in", "contains"]
    value: str | float | int | bool | None = None


class Sort(BaseModel):
    column: str
    descending: bool = False


class QueryTable(BaseModel):
    """Query a table with filters."""

    table: str
    columns: list[str] | None = None
    filters: list[Filter] = []
    sort: list[Sort] = []
    limit: Annotated[int, Field(ge=1, le=10_000)] = 100


class Circle(BaseModel):
    kind: Literal["circle"] = "circle"
    radius: Annotated[float, Field(gt=0)]


class Rect(BaseModel):
    kind: Literal["rect"] = "rect"
    width: float
    height: float


class Polygon(BaseModel):
    kind: Literal["polygon"] = "polygon"
    points: list[tuple[float, float]]


class DrawShapes(BaseModel):
    """Draw shapes on the canvas (a discriminated union)."""

    shapes: list[Annotated[Circle | Rect | Polygon, Field(discriminator="kind")]]
    fill: Color = Color.blue
    stroke_width: float = 1.0


class Schedule(BaseModel):
    """Schedule a meeting."""

    title: Annotated[str, Field(max_length=120)]
    start: dt.datetime
    day: dt.date | None = None
    duration_minutes: Annotated[int, Field(multiple_of=5, ge=5, le=480)] = 30
    attendees: list[EmailStr]
    link: AnyUrl | None = None
    notes: str | None = None


class Labels(BaseModel):
    """Label rows with free-form tags (a dict map)."""

    labels: dict[str, str]
    weights: dict[str, float] = {}
    nested: dict[str, list[int]] = {}


class Matrix(BaseModel):
    """Nested arrays."""

    rows: list[list[float]]
    shape: tuple[int, int]
    names: list[list[str]] | None = None


class TreeNode(BaseModel):
    name: str
    children: list[TreeNode] = []


class BuildTree(BaseModel):
    """A recursive model."""

    root: TreeNode


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")
    retries: conint(ge=0, le=10) = 3  # type: ignore[valid-type]
    timeout_s: float = 30.0
    mode: Literal["fast", "safe"] = "safe"
    tags: set[str] = set()


class Deploy(BaseModel):
    """A strict model with a readOnly field."""

    model_config = ConfigDict(extra="forbid")
    service: constr(pattern=r"^[a-z][a-z0-9-]*$")  # type: ignore[valid-type]
    version: str = Field(default="latest", json_schema_extra={"readOnly": True})
    config: Config = Config()
    env: dict[str, str] = {}


class SendEmail(BaseModel):
    """Send an email."""

    to: list[EmailStr]
    cc: list[EmailStr] = []
    subject: str
    body: str
    priority: Literal["low", "normal", "high"] = "normal"
    attachments: list[str] | None = None


class Point(BaseModel):
    x: float
    y: float


class Route(BaseModel):
    """Plan a route."""

    waypoints: Annotated[list[Point], Field(min_length=2)]
    avoid: list[Literal["tolls", "highways", "ferries"]] = []
    depart_at: dt.datetime | None = None


class Paginate(BaseModel):
    cursor: str | None = None
    page_size: int = 50


class SearchIssues(BaseModel):
    """Search issues."""

    query: str
    state: Literal["open", "closed", "all"] = "open"
    labels: list[str] = []
    assignee: str | None = None
    page: Paginate = Paginate()


class ByName(BaseModel):
    name: str


class ById(BaseModel):
    id: int


class LookupUser(BaseModel):
    """A plain (undiscriminated) union of object shapes."""

    who: ByName | ById
    include_groups: bool = False


class Thresholds(BaseModel):
    warn: float
    crit: float


class Alert(BaseModel):
    """An optional nested model."""

    metric: str
    thresholds: Thresholds | None = None
    channels: list[Literal["email", "slack", "pager"]] = ["email"]


class Resize(BaseModel):
    """Resize an image."""

    path: str
    width: Annotated[int, Field(ge=1, le=8192)] | None = None
    height: Annotated[int, Field(ge=1, le=8192)] | None = None
    keep_aspect: bool = True
    format: Literal["png", "jpeg", "webp"] | None = None
    quality: Annotated[int, Field(ge=1, le=100)] = 85


class Order(BaseModel):
    """Place an order."""

    items: Annotated[list[dict[str, int]], Field(description="sku → quantity per parcel")]
    shipping: Address
    billing: Address | None = None
    coupon: str | None = None
    gift: bool = False


def plain_function_schemas() -> dict[str, Any]:
    """The input schemas of the notebook_tools built-ins (the project's own tools)."""
    return {t.name: t.input_schema for t in builtins.BUILTIN_FRONTEND_TOOLS}


SDK_TYPES = {
    "ToolChoiceParam": at.ToolChoiceParam,
    "MetadataParam": at.MetadataParam,
    "CacheControlEphemeralParam": at.CacheControlEphemeralParam,
    "ImageBlockParam": at.ImageBlockParam,
    "WebSearchTool20250305Param": at.WebSearchTool20250305Param,
    "ThinkingConfigParam": at.ThinkingConfigParam,
    "ToolParam": at.ToolParam,
    "CitationsConfigParam": at.CitationsConfigParam,
}


def write(name: str, source: str, schema: dict[str, Any]) -> None:
    (OUT / f"{name}.json").write_text(
        json.dumps({"source": source, "tool": name, "schema": schema}, indent=1) + "\n"
    )


def main() -> None:
    OUT.mkdir(exist_ok=True)
    models = [
        CreateContacts,
        QueryTable,
        DrawShapes,
        Schedule,
        Labels,
        Matrix,
        BuildTree,
        Deploy,
        SendEmail,
        Route,
        SearchIssues,
        LookupUser,
        Alert,
        Resize,
        Order,
        Person,
        Address,
        Config,
    ]
    for model in models:
        write(f"pydantic-{model.__name__}", PYDANTIC, model.model_json_schema())
    for name, schema in plain_function_schemas().items():
        write(f"notebook_tools-{name}", "notebook_tools built-in tool (Tool.input_schema)", schema)
    for name, typ in SDK_TYPES.items():
        try:
            schema = TypeAdapter(typ).json_schema()
        except Exception as exc:
            print(f"skipped anthropic.types.{name}: {exc}")
            continue
        write(
            f"anthropic-{name}",
            f"anthropic {anthropic_version()} anthropic.types.{name} via pydantic TypeAdapter",
            schema,
        )


def anthropic_version() -> str:
    import anthropic

    return anthropic.__version__


if __name__ == "__main__":
    main()
