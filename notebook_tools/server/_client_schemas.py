"""A client tool's parameters: a JSON Schema the server can check the model's arguments against.

`schema_problem` says why a schema from `RunAgentInput.tools` is refused (a 422 before anything
runs), or None. Besides being a Draft 2020-12 schema of an object whose property names the
Messages API takes (`^[a-zA-Z0-9_.-]{1,64}$`, checked at the top level), every `$ref` (and
`$dynamicRef`) that checking a value can reach must resolve within the schema itself: nothing
is ever fetched (a remote `$ref` would make the server send requests wherever a client says,
blocking while it waits), and a reference that does not resolve would fail only when the model
calls the tool, in the middle of a run. References may recurse through a value's parts (a
tree's `children`), but not loop on the same value (`allOf`, `anyOf`, `oneOf`, `not`,
`if`/`then`/`else`, `dependentSchemas` and references back to where they started), which
checking any value would follow forever, nor multiply on it: twenty references to an `anyOf` of
two references to the next are a million subschemas for one failing value, all checked on the
event loop (every request of the worker waits), so at most `MAX_EXPANSION` are taken. For the
same reason one request's schemas may hold at most `MAX_SCHEMA_NODES` objects and lists, and the
answer for a schema seen before is remembered (clients send their tools with every run). Every
`pattern` (and `patternProperties` key) must be a regex RE2 matches, in linear time: Python's `re`
backtracks, and `^(a+)+$` against the model's `"aaaa…ab"` would stall the worker (see
`tools._patterns`); lookaround and backreferences are refused, naming where the pattern is.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from referencing import Registry
from referencing.jsonschema import DRAFT202012

from ..api._rules import PROPERTY_KEY_RE
from ..tools._patterns import schema_pattern_problem
from ..tools._schemas import check_schema

__all__ = ["MAX_EXPANSION", "MAX_SCHEMA_NODES", "schema_nodes", "schema_problem"]

_SAME_VALUE_LISTS = ("allOf", "anyOf", "oneOf")
_SAME_VALUE_ONE = ("not", "if", "then", "else")
_PART_ONE = (
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
_PART_MAPS = ("properties", "patternProperties")
_REFS = ("$ref", "$dynamicRef")
MAX_EXPANSION = 10_000
"""The most subschemas checking one value may take (jsonschema tries every branch of a failing `anyOf`)."""


MAX_SCHEMA_NODES = 4_000
"""The most objects and lists one request's client tool schemas may hold together: checking a schema
against the metaschema takes about 0.1 ms an object, on the event loop (a 1 MB schema took 10 s)."""
_KNOWN: dict[str, str | None] = {}  # by hash: answers for schemas seen before (clients send tools every run)


def schema_nodes(schema: Any) -> int:
    """How many objects and lists `schema` holds."""
    count, todo = 0, [schema]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            todo += value.values()
        elif isinstance(value, list):
            todo += value
        else:
            continue
        count += 1
    return count


def schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be a client tool's parameters, or None when it can (remembered by its JSON)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return 'parameters must be a JSON Schema with "type": "object"'
    key = hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()
    if key not in _KNOWN:
        if len(_KNOWN) >= 512:
            _KNOWN.clear()
        _KNOWN[key] = _problem(schema)
    return _KNOWN[key]


def _problem(schema: dict[str, Any]) -> str | None:
    import jsonschema  # on first use: its import is slow (see notebook_tools.tools._schemas)

    try:
        check_schema(schema)  # (its `regex` format: what RE2 or Python's `re` compiles)
    except jsonschema.SchemaError as exc:
        return f"parameters is not a valid JSON Schema: {exc.message}"
    except RecursionError:
        return "parameters is nested too deeply"
    bad = [k for k in schema.get("properties", {}) if not PROPERTY_KEY_RE.fullmatch(k)]
    if bad:  # the Messages API would refuse the run's every request
        names = ", ".join(map(repr, bad[:5]))
        return f"property names must be 1-64 letters, digits, '_', '.' or '-', not {names}"
    return schema_pattern_problem(schema, "parameters") or _reference_problem(schema, check_schema)


def _reference_problem(schema: dict[str, Any], check: Any) -> str | None:
    """A `$ref` that does not resolve within `schema`, or references looping on (or multiplying) one value."""
    root = Registry().resolver_with_root(DRAFT202012.create_resource(schema))
    todo: list[tuple[Any, Any]] = [(schema, root)]
    seen: set[int] = set()
    same: dict[int, list[int]] = {}  # subschema -> the subschemas checked against the same value
    while todo:
        node, resolver = todo.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
        same_value, parts = _children(node)
        targets = []
        for keyword in _REFS:
            ref = node.get(keyword)
            if ref is None:
                continue
            try:
                resolved = resolver.lookup(ref)
                check(resolved.contents)  # it may point into an `enum` or a `const`: not a checked schema
            except RecursionError:
                return "parameters is nested too deeply"
            except Exception:  # Unresolvable, a pointer through a list by name (ValueError), SchemaError
                return f"the {keyword} {ref!r} does not resolve to a schema in this one (nothing is fetched)"
            targets.append((resolved.contents, resolved.resolver))  # in the scope of the target's resource
        same[id(node)] = [id(s) for s in (*same_value, *(c for c, _ in targets)) if isinstance(s, dict)]
        todo += [(s, resolver) for s in (*same_value, *parts)] + targets
    sizes = _expansions(same)
    if sizes is None:
        return "its references loop on the same value (checking any value would never end)"
    if max(sizes.values()) > MAX_EXPANSION:
        return (
            f"its alternatives multiply: checking one value could take over {MAX_EXPANSION} subschemas "
            "(references to `anyOf`/`allOf`/`oneOf` of references ...)"
        )
    return None


def _children(node: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The subschemas checked against the same value as `node`, and those checked against its parts."""
    same_value = [s for k in _SAME_VALUE_LISTS for s in node.get(k, [])]
    same_value += [node[k] for k in _SAME_VALUE_ONE if k in node]
    same_value += list(node.get("dependentSchemas", {}).values())
    parts = [node[k] for k in _PART_ONE if k in node]
    parts += [s for k in _PART_MAPS for s in node.get(k, {}).values()]
    parts += list(node.get("prefixItems", []))
    return same_value, parts


def _expansions(edges: dict[int, list[int]]) -> dict[int, int] | None:
    """How many subschemas checking one value may visit from each one (capped); None when they loop."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    for start in edges:
        if start in size:
            continue
        stack = [(start, 0)]
        on_path.add(start)
        while stack:
            node, index = stack[-1]
            following = edges.get(node, [])
            if index < len(following):
                stack[-1] = (node, index + 1)
                step = following[index]
                if step in on_path:
                    return None
                if step not in size:
                    on_path.add(step)
                    stack.append((step, 0))
            else:
                size[node] = min(MAX_EXPANSION + 1, 1 + sum(size[c] for c in following))
                on_path.discard(node)
                stack.pop()
    return size
