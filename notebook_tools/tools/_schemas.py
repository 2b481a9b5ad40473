"""JSON Schema helpers for tools: schemas from dicts or pydantic models, and checking values against them.

jsonschema is imported on first use (see `validator`); `warm_up_validator` overlaps that import
with the first request's network wait. Regex keywords are matched in linear time (`_patterns`).
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
from collections.abc import Mapping
from typing import Any

import pydantic

from .._exceptions import ToolDefinitionError

__all__ = ["check_schema", "error_lines", "schema_of", "validator", "warm_up_validator"]


def schema_of(schema: Mapping[str, Any] | type[pydantic.BaseModel] | None) -> dict[str, Any] | None:
    """A JSON Schema dict from a dict or a pydantic model class (None stays None)."""
    if schema is None:
        return None
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, Mapping):
        return dict(schema)
    raise ToolDefinitionError(
        f"A schema must be a dict or a pydantic model class, not {type(schema).__name__}"
    )


def validator(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator for `schema` that never fetches a remote `$ref`, matching regexes with RE2.

    jsonschema's default still fetches one with urllib (deprecated, blocking, no timeout): a
    schema from a web client would make this process request any URL it names. With a registry
    of its own, a `$ref` outside the schema (and the metaschemas) is unresolvable instead.

    `pattern` and `patternProperties` are matched by RE2, in linear time (see `_patterns`). A
    pattern RE2 refuses (lookaround, backreferences) falls back to Python's `re`: that is for
    schemas written in Python only. An untrusted schema (an AG-UI client tool's, an MCP server's)
    must pass `_patterns.schema_pattern_problem` before it is used, so every pattern it holds is RE2's.
    """
    # Imported on first use: jsonschema loads its optional format checkers at import, and one of them
    # (rfc3987-syntax, which Jupyter installs) takes about 1.5 s, which would triple our import time.
    import referencing

    from ._pattern_keywords import RE2Draft202012Validator

    return RE2Draft202012Validator(schema, registry=referencing.Registry())


def check_schema(schema: Any, draft: Any = None) -> None:
    r"""Raise jsonschema.SchemaError unless `schema` fits its draft's metaschema (`draft`: its class).

    As jsonschema's `check_schema`, with the `regex` format (each `pattern`) accepting what RE2
    or Python's `re` compiles, so an ECMA-262 pattern Python spells otherwise (`\u{1F600}`,
    `\p{L}`) is not refused; whether RE2 can match it is `_patterns.schema_pattern_problem`'s question.
    """
    import jsonschema

    (draft or jsonschema.Draft202012Validator).check_schema(schema, format_checker=_schema_formats())


@functools.cache
def _schema_formats() -> Any:
    import jsonschema

    from ._patterns import is_regex

    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("regex")(is_regex)
    return checker


def error_lines(validator: Any, instance: Any) -> list[str]:
    """Every way `instance` fails `validator`, one readable line each ("path: message").

    A JSON integer too large for a float (10**400) meeting a float keyword (`multipleOf: 0.5`)
    makes jsonschema raise OverflowError: that value is refused with a line saying so.
    """
    try:
        errors = list(validator.iter_errors(instance))
    except OverflowError:
        return ["a number in it is too large to check against the schema"]
    lines = []
    for error in sorted(errors, key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path)
        lines.append(f"{where}: {error.message}" if where else error.message)
    return lines


def warm_up_validator() -> None:
    """Import jsonschema in a thread while the first request waits on the network.

    It is imported lazily (see `validator`) because importing it takes about 1.5 s where
    Jupyter has installed its optional format checkers; this overlaps that with the API's latency.
    """
    if "jsonschema" not in sys.modules:
        threading.Thread(target=importlib.import_module, args=("jsonschema",), daemon=True).start()
