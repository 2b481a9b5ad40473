"""A client tool's parameters: a JSON Schema the server can check the model's arguments against.

`schema_problem` says why a schema from `RunAgentInput.tools` is refused (a 422 before anything
runs), or None. Besides being a Draft 2020-12 schema of an object, every `$ref` (and
`$dynamicRef`) that checking a value can reach must resolve within the schema itself: nothing
is ever fetched (a remote `$ref` would make the server send requests wherever a client says,
blocking while it waits), and a reference that does not resolve would fail only when the model
calls the tool, in the middle of a run. References may recurse through a value's parts (a
tree's `children`), but not loop on the same value (`allOf`, `anyOf`, `oneOf`, `not`,
`if`/`then`/`else`, `dependentSchemas` and references back to where they started), which
checking any value would follow forever.
"""

from __future__ import annotations

from typing import Any

from referencing import Registry
from referencing.jsonschema import DRAFT202012

__all__ = ["schema_problem"]

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


def schema_problem(schema: Any) -> str | None:
    """Why `schema` cannot be a client tool's parameters, or None when it can."""
    import jsonschema  # on first use: its import is slow (see notebook_tools._schemas)

    if not isinstance(schema, dict) or schema.get("type") != "object":
        return 'parameters must be a JSON Schema with "type": "object"'
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"parameters is not a valid JSON Schema: {exc.message}"
    except RecursionError:
        return "parameters is nested too deeply"
    return _reference_problem(schema, jsonschema.Draft202012Validator.check_schema)


def _reference_problem(schema: dict[str, Any], check: Any) -> str | None:
    """A `$ref` that does not resolve within `schema`, or references looping on one value."""
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
            todo.append((resolved.contents, resolved.resolver))
            same_value.append(resolved.contents)
        same[id(node)] = [id(s) for s in same_value if isinstance(s, dict)]
        todo += [(s, resolver) for s in (*same_value, *parts)]
    if _has_cycle(same):
        return "its references loop on the same value (checking any value would never end)"
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


def _has_cycle(edges: dict[int, list[int]]) -> bool:
    """Whether the graph `edges` has a cycle (an iterative depth-first search)."""
    state: dict[int, int] = {}  # 1: on the current path, 2: done
    for start in edges:
        if start in state:
            continue
        stack = [(start, iter(edges.get(start, [])))]
        state[start] = 1
        while stack:
            node, following = stack[-1]
            step = next(following, None)
            if step is None:
                state[node] = 2
                stack.pop()
            elif state.get(step) == 1:
                return True
            elif step not in state:
                state[step] = 1
                stack.append((step, iter(edges.get(step, []))))
    return False
