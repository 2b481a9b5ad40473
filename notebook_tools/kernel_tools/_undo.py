"""Checkpoints before each run, what a run changed, and undo.

Before an approved run, the variables it can change are copied into a `Checkpoint`; afterwards
`changes` compares the namespace with it (variables added, removed or changed; for a DataFrame the
rows and columns added or dropped, dtype changes and a few changed cells), and `undo` puts the
copies back: one step, or every step back to an earlier checkpoint.

Copies: a pandas object under copy-on-write (always on from pandas 3) is copied lazily
(`copy(deep=False)`: nothing is duplicated until one side is written), otherwise deeply; a numpy
array with `.copy()`; immutable values are kept as they are; anything else with `copy.deepcopy`.
A value that cannot be copied (a module, a generator, an open file, a lock) is named in
`not_kept` and cannot be restored. Other names bound to the same object are checkpointed with it,
and restored to one object again. Objects reached from outside the namespace (a list inside
another variable, a frame held by a module) are not tracked.

The budget counts each checkpoint at its full size (a lazy copy may come to cost that much once the
run writes); past it the oldest checkpoints are let go, and a checkpoint that alone exceeds it is
refused (`CheckpointTooLarge`) so the run can say beforehand that it cannot be undone.
"""

from __future__ import annotations

import copy
import itertools
import sys
import time
from collections.abc import Collection, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._exceptions import NotebookToolsError

__all__ = [
    "CellChange",
    "Checkpoint",
    "CheckpointTooLarge",
    "Checkpoints",
    "UnknownCheckpoint",
    "VariableChange",
]

_ABSENT = object()
_MAX_CELLS = 5
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), frozenset)


class CheckpointTooLarge(NotebookToolsError):
    """A checkpoint alone would exceed the undo budget: the run cannot be undone."""


class UnknownCheckpoint(NotebookToolsError):
    """No checkpoint of this history has that id."""


@dataclass
class Checkpoint:
    """The variables one run could change, as they were before it."""

    id: str
    label: str
    names: tuple[str, ...]
    size: int
    created_at: float = field(default_factory=time.time)
    not_kept: dict[str, str] = field(default_factory=dict)
    """Names whose values could not be copied, and why: they are not restored."""
    values: dict[str, Any] = field(default_factory=dict, repr=False)
    """name -> the copy (or the absent marker: the name did not exist)."""
    groups: list[tuple[str, ...]] = field(default_factory=list, repr=False)
    """Names bound to one object before the run (restored to one object again)."""


@dataclass(frozen=True)
class CellChange:
    """One changed cell of a DataFrame (values: for the person; the model sees them only by consent)."""

    row: str
    column: str
    before: str
    after: str

    def to_dict(self) -> dict[str, str]:
        """As JSON data."""
        return {"row": self.row, "column": self.column, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class VariableChange:
    """What happened to one variable in a run."""

    name: str
    change: Literal["added", "removed", "changed"]
    before_type: str | None
    after_type: str | None
    summary: str
    """One line without any value: "DataFrame 344x8 → 333x8: 11 rows dropped"."""
    rows_added: int = 0
    rows_removed: int = 0
    columns_added: tuple[str, ...] = ()
    columns_removed: tuple[str, ...] = ()
    dtype_changes: dict[str, tuple[str, str]] = field(default_factory=dict)
    cells: tuple[CellChange, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """As JSON data (the cells included)."""
        return {
            "name": self.name,
            "change": self.change,
            "before_type": self.before_type,
            "after_type": self.after_type,
            "summary": self.summary,
            "rows_added": self.rows_added,
            "rows_removed": self.rows_removed,
            "columns_added": list(self.columns_added),
            "columns_removed": list(self.columns_removed),
            "dtype_changes": {k: list(v) for k, v in self.dtype_changes.items()},
            "cells": [c.to_dict() for c in self.cells],
        }


def _pandas() -> Any:
    return sys.modules.get("pandas")


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _lazy_copies() -> bool:
    pd = _pandas()
    if pd is None:
        return False
    if int(pd.__version__.split(".")[0]) >= 3:
        return True
    return bool(getattr(getattr(pd.options, "mode", None), "copy_on_write", False) is True)


def _is_immutable(value: Any) -> bool:
    if isinstance(value, _IMMUTABLE):
        return True
    return isinstance(value, tuple) and all(_is_immutable(v) for v in value)


def size_of(value: Any, _depth: int = 0) -> int:
    """Bytes a copy of `value` may hold (its full size; 0 for an immutable value kept by reference)."""
    pd, np = _pandas(), _numpy()
    try:
        if _is_immutable(value):
            return 0
        if pd is not None and isinstance(value, pd.DataFrame | pd.Series | pd.Index):
            deep = len(value) < 1_000_000
            used = value.memory_usage(deep=deep)
            return int(used.sum() if hasattr(used, "sum") else used)
        if np is not None and isinstance(value, np.ndarray):
            return int(value.nbytes)
        size = sys.getsizeof(value)
        if _depth < 3 and isinstance(value, list | tuple | set | frozenset):
            size += sum(size_of(v, _depth + 1) for v in itertools.islice(value, 10_000))
        elif _depth < 3 and isinstance(value, dict):
            size += sum(
                size_of(k, _depth + 1) + size_of(v, _depth + 1)
                for k, v in itertools.islice(value.items(), 10_000)
            )
        return int(size)
    except Exception:
        return 0


def _copy(value: Any) -> Any:
    """A copy that a later in-place change of `value` does not reach (raises when there is none)."""
    pd, np = _pandas(), _numpy()
    if _is_immutable(value):
        return value
    if pd is not None and isinstance(value, pd.DataFrame | pd.Series | pd.Index):
        return value.copy(deep=not _lazy_copies())
    if np is not None and isinstance(value, np.ndarray):
        return value.copy()
    import types

    if isinstance(value, types.ModuleType | types.GeneratorType | types.FunctionType | type):
        raise TypeError(f"a {type(value).__name__} cannot be copied")
    return copy.deepcopy(value)


class Checkpoints:
    """The undo history of a namespace.

    Args:
        budget_bytes: What the history may hold (see the module docstring).
    """

    def __init__(self, budget_bytes: int = 2 * 1024**3) -> None:
        self.budget_bytes = budget_bytes
        self.history: list[Checkpoint] = []
        """Oldest first."""
        self.dropped = 0
        """How many of the oldest checkpoints were let go for the budget."""
        self._ids = itertools.count(1)

    def _names(
        self, namespace: Mapping[str, Any], names: Collection[str]
    ) -> tuple[list[str], list[tuple[str, ...]]]:
        """`names` with every other name bound to the same objects, and those groups."""
        wanted = list(dict.fromkeys(names))
        groups: list[tuple[str, ...]] = []
        by_id: dict[int, list[str]] = {}
        for name, value in namespace.items():
            if not _is_immutable(value):
                by_id.setdefault(id(value), []).append(name)
        for name in list(wanted):
            if name in namespace and not _is_immutable(namespace[name]):
                group = by_id.get(id(namespace[name]), [name])
                if len(group) > 1:
                    groups.append(tuple(group))
                    wanted.extend(n for n in group if n not in wanted)
        return wanted, list(dict.fromkeys(groups))

    def estimate(self, namespace: Mapping[str, Any], names: Collection[str]) -> int:
        """Bytes a checkpoint of `names` would hold."""
        wanted, _ = self._names(namespace, names)
        seen: set[int] = set()
        total = 0
        for name in wanted:
            value = namespace.get(name, _ABSENT)
            if value is _ABSENT or id(value) in seen:
                continue
            seen.add(id(value))
            total += size_of(value)
        return total

    def take(self, namespace: Mapping[str, Any], names: Collection[str], label: str) -> Checkpoint:
        """Copy `names` (and their aliases) as they are now.

        Raises:
            CheckpointTooLarge: this checkpoint alone exceeds the budget (nothing is kept).
        """
        wanted, groups = self._names(namespace, names)
        size = self.estimate(namespace, wanted)
        if size > self.budget_bytes:
            raise CheckpointTooLarge(
                f"a checkpoint of {', '.join(wanted)} needs {size} bytes, over the budget"
            )
        checkpoint = Checkpoint(f"c{next(self._ids)}", label, tuple(wanted), size, groups=groups)
        copies: dict[int, Any] = {}
        for name in wanted:
            value = namespace.get(name, _ABSENT)
            if value is _ABSENT:
                checkpoint.values[name] = _ABSENT
                continue
            try:
                if id(value) not in copies:
                    copies[id(value)] = _copy(value)
                checkpoint.values[name] = copies[id(value)]
            except Exception as exc:
                checkpoint.not_kept[name] = f"{type(exc).__name__}: {exc}"[:200]
        self.history.append(checkpoint)
        while sum(c.size for c in self.history) > self.budget_bytes and len(self.history) > 1:
            self.history.pop(0)
            self.dropped += 1
        return checkpoint

    def changes(
        self, namespace: Mapping[str, Any], checkpoint: Checkpoint, also: Collection[str] = ()
    ) -> list[VariableChange]:
        """What changed in the namespace since `checkpoint` (unchanged names left out)."""
        found = []
        for name in dict.fromkeys([*checkpoint.names, *also]):
            if name in checkpoint.not_kept:
                continue
            before = checkpoint.values.get(name, _ABSENT)
            after = namespace.get(name, _ABSENT)
            change = _compare(name, before, after)
            if change is not None:
                found.append(change)
        return found

    def undo(self, namespace: MutableMapping[str, Any], to: str | None = None) -> list[Checkpoint]:
        """Restore the newest checkpoint, or every one back to and including `to`; newest first.

        Raises:
            UnknownCheckpoint: `to` is not in the history (nothing changes).
        """
        if not self.history:
            return []
        if to is None:
            index = len(self.history) - 1
        else:
            ids = [c.id for c in self.history]
            if to not in ids:
                known = ", ".join(ids) or "none"
                raise UnknownCheckpoint(f"no checkpoint {to!r} to go back to (checkpoints: {known})")
            index = ids.index(to)
        restored = list(reversed(self.history[index:]))
        del self.history[index:]
        for checkpoint in restored:
            _restore(namespace, checkpoint)
        return restored

    def forget(self) -> None:
        """Drop the whole history."""
        self.history.clear()


def _restore(namespace: MutableMapping[str, Any], checkpoint: Checkpoint) -> None:
    for name, value in checkpoint.values.items():
        if value is _ABSENT:
            namespace.pop(name, None)
        else:
            namespace[name] = value
    checkpoint.values = {}  # the restored objects are the namespace's now, never shared with a later step


def _type(value: Any) -> str | None:
    return None if value is _ABSENT else type(value).__name__


def _dims(value: Any) -> str:
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return "x".join(str(d) for d in shape)
    try:
        return f"of {len(value)}"
    except Exception:
        return ""


def _equal(before: Any, after: Any) -> bool:
    pd, np = _pandas(), _numpy()
    try:
        if before is after:
            return True
        if pd is not None and isinstance(before, pd.DataFrame | pd.Series | pd.Index):
            return bool(
                type(before) is type(after)
                and before.equals(after)
                and (not hasattr(before, "dtypes") or before.dtypes.equals(after.dtypes))
                and getattr(before, "name", None) == getattr(after, "name", None)
            )
        if np is not None and isinstance(before, np.ndarray):
            return bool(
                isinstance(after, np.ndarray)
                and before.dtype == after.dtype
                and np.array_equal(before, after, equal_nan=before.dtype.kind in "fc")
            )
        return bool(type(before) is type(after) and before == after)
    except Exception:
        return False


def _compare(name: str, before: Any, after: Any) -> VariableChange | None:
    if before is _ABSENT and after is _ABSENT:
        return None
    if before is _ABSENT:
        return VariableChange(
            name, "added", None, _type(after), f"{name}: new {_type(after)} {_dims(after)}".rstrip()
        )
    if after is _ABSENT:
        return VariableChange(name, "removed", _type(before), None, f"{name}: removed")
    if _equal(before, after):
        return None
    pd = _pandas()
    if pd is not None and isinstance(before, pd.DataFrame) and isinstance(after, pd.DataFrame):
        return _frame_change(name, before, after)
    dims_before, dims_after = _dims(before), _dims(after)
    what = (
        f"{_type(before)} {dims_before} → {_type(after)} {dims_after}"
        if dims_before or dims_after
        else f"{_type(after)} changed"
    )
    np = _numpy()
    if (
        np is not None
        and isinstance(before, np.ndarray)
        and isinstance(after, np.ndarray)
        and before.shape == after.shape
    ):
        try:
            differing = int((before != after).sum())
            what += f": {differing} elements changed"
        except Exception:
            pass
    return VariableChange(name, "changed", _type(before), _type(after), f"{name}: {what}")


def _frame_change(name: str, before: Any, after: Any) -> VariableChange:
    rows_removed = rows_added = 0
    try:
        rows_removed = int((~before.index.isin(after.index)).sum())
        rows_added = int((~after.index.isin(before.index)).sum())
    except Exception:
        pass
    columns_before = [str(c) for c in before.columns]
    columns_after = [str(c) for c in after.columns]
    added = tuple(c for c in columns_after if c not in columns_before)
    removed = tuple(c for c in columns_before if c not in columns_after)
    dtypes: dict[str, tuple[str, str]] = {}
    for column in before.columns:
        if column in after.columns and str(before[column].dtype) != str(after[column].dtype):
            dtypes[str(column)] = (str(before[column].dtype), str(after[column].dtype))
    cells = _changed_cells(before, after)
    parts = [f"DataFrame {_dims(before)} → {_dims(after)}"]
    if rows_removed:
        parts.append(f"{rows_removed} rows dropped")
    if rows_added:
        parts.append(f"{rows_added} rows added")
    if added:
        parts.append("columns added: " + ", ".join(added))
    if removed:
        parts.append("columns dropped: " + ", ".join(removed))
    parts += [f"column {c!r} dtype {a} → {b}" for c, (a, b) in dtypes.items()]
    if cells:
        parts.append("values changed")
    summary = f"{name}: " + parts[0] + (": " + "; ".join(parts[1:]) if len(parts) > 1 else "")
    return VariableChange(
        name,
        "changed",
        "DataFrame",
        "DataFrame",
        summary,
        rows_added,
        rows_removed,
        added,
        removed,
        dtypes,
        cells,
    )


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."


def _changed_cells(before: Any, after: Any) -> tuple[CellChange, ...]:
    """Up to five cells present before and after whose values differ."""
    found: list[CellChange] = []
    try:
        rows = before.index.intersection(after.index)
        columns = [c for c in before.columns if c in after.columns]
        if not before.index.is_unique or not after.index.is_unique:
            return ()
        for column in columns:
            left = before.loc[rows, column]
            right = after.loc[rows, column]
            differ = ~((left == right) | (left.isna() & right.isna()))
            for row in differ[differ.fillna(True).astype(bool)].index[: _MAX_CELLS - len(found)]:
                found.append(CellChange(_short(row), str(column), _short(left[row]), _short(right[row])))
            if len(found) >= _MAX_CELLS:
                break
    except Exception:
        return tuple(found)
    return tuple(found)
