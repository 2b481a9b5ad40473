"""What the notebook's own functions may do when a run calls them.

A run's syntax tree shows a call of `clean()`, a function a cell defined earlier, not what it does.
A function whose globals are the notebook's namespace is followed, and so is every such function it
reaches, transitively:

- the globals it rebinds or deletes (`global df; df = df.dropna()`), read from its bytecode (exact,
  whatever its source), are bound by the run: checkpointed, and a reassigned or deleted existing
  variable is a risk named with the function ("calls clean(), which reassigns global 'df'");
- every global it reads may be changed in place by it: checkpointed (conservative, as the reading
  of the run's own code is);
- the risks its source shows, when the source can be read (IPython keeps every cell's source, so
  `inspect.getsource` finds it), are the run's too, named with the function ("in clean(): line 3:
  df.to_csv(...) writes a file"). A function whose source cannot be read is followed by its
  bytecode alone.

Not followed: methods of classes the notebook defined, functions held inside containers, and
functions of other modules (what they change is not the notebook's namespace, except through the
objects passed to them, which the run's own reading already counts).
"""

from __future__ import annotations

import dataclasses
import dis
import inspect
import textwrap
import types
from collections.abc import Iterator, Mapping
from typing import Any

from ._reading import CodeReading, Risk, read_code

__all__ = ["follow_calls"]

_MAX_FUNCTIONS = 200
"""Functions followed for one run at most (a namespace of thousands is read no further)."""


def follow_calls(reading: CodeReading, namespace: Mapping[str, Any]) -> CodeReading:
    """`reading` with what the notebook's functions it reaches may bind, change and risk."""
    functions = _reached(reading.references | reading.mutates, namespace)
    if not functions:
        return reading
    binds, reads, risks = set(reading.binds), set(), list(reading.risks)
    existing = frozenset(namespace)
    for name, function in functions.items():
        stored, deleted, loaded = _globals_of(function.__code__)
        binds |= stored | deleted
        reads |= loaded
        for global_name in sorted(stored & existing - {name}):
            risks.append(Risk("reassign", 0, f"calls {name}(), which reassigns global {global_name!r}"))
        for global_name in sorted(deleted & existing):
            said = f"calls {name}(), which deletes variable {global_name!r}"
            risks.append(Risk("delete_variable", 0, said))
        risks.extend(_source_risks(name, function, existing))
    mutates = reading.mutates | (frozenset(reads) & existing) - frozenset(functions)
    unique = {(r.kind, r.detail): r for r in reversed(risks)}  # (the first of each, as read_code keeps)
    return dataclasses.replace(
        reading,
        binds=frozenset(binds),
        mutates=frozenset(mutates),
        risks=tuple(sorted(unique.values(), key=lambda r: (r.line, r.kind, r.detail))),
    )


def _reached(names: frozenset[str], namespace: Mapping[str, Any]) -> dict[str, types.FunctionType]:
    """The notebook's functions among `names`, and every one they reach through their globals."""
    found: dict[str, types.FunctionType] = {}
    pending = sorted(names)
    while pending and len(found) < _MAX_FUNCTIONS:
        name = pending.pop()
        if name in found:
            continue
        value = namespace.get(name)
        if not isinstance(value, types.FunctionType) or value.__globals__ is not namespace:
            continue
        found[name] = value
        _, _, loaded = _globals_of(value.__code__)
        pending.extend(sorted(loaded - set(found)))
    return found


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """`code` and every code object inside it (inner functions, lambdas, comprehensions)."""
    pending = [code]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))


def _globals_of(code: types.CodeType) -> tuple[set[str], set[str], set[str]]:
    """The global names `code` stores, deletes and loads."""
    stored: set[str] = set()
    deleted: set[str] = set()
    loaded: set[str] = set()
    for inner in _code_objects(code):
        for instruction in dis.get_instructions(inner):
            if not isinstance(instruction.argval, str):
                continue
            if instruction.opname == "STORE_GLOBAL":
                stored.add(instruction.argval)
            elif instruction.opname == "DELETE_GLOBAL":
                deleted.add(instruction.argval)
            elif instruction.opname == "LOAD_GLOBAL":
                loaded.add(instruction.argval)
    return stored, deleted, loaded


def _source_risks(name: str, function: types.FunctionType, existing: frozenset[str]) -> list[Risk]:
    """The risks the function's source shows (its bindings are its bytecode's: read exactly above)."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):  # no source kept (exec'd without a file): its bytecode says the rest
        return []
    own = read_code(source, existing)
    return [
        Risk(r.kind, 0, f"in {name}(): line {r.line}: {r.detail}" if r.line else f"in {name}(): {r.detail}")
        for r in own.risks
        if r.kind not in ("reassign", "delete_variable")  # (`def f` rebinds f; its globals: the bytecode)
    ]
