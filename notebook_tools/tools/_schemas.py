"""JSON Schema helpers for tools: schemas from dicts or pydantic models, and checking values against them.

jsonschema is imported on first use (see `validator`); `warm_up_validator` overlaps that import
with the first request's network wait.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Mapping
from typing import Any

import pydantic

from .._exceptions import ToolDefinitionError

__all__ = ["error_lines", "schema_of", "validator", "warm_up_validator"]


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
    """A Draft 2020-12 validator for `schema` that never fetches a remote `$ref`.

    jsonschema's default still fetches one with urllib (deprecated, blocking, no timeout): a
    schema from a web client would make this process request any URL it names. With a registry
    of its own, a `$ref` outside the schema (and the metaschemas) is unresolvable instead.
    """
    # Imported on first use: jsonschema loads its optional format checkers at import, and one of them
    # (rfc3987-syntax, which Jupyter installs) takes about 1.5 s, which would triple our import time.
    import jsonschema
    import referencing

    return jsonschema.Draft202012Validator(schema, registry=referencing.Registry())


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
