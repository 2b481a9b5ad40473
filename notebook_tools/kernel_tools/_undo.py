"""Checkpoints before each run, what a run changed, and undo.

Before an approved run, the variables it can change are copied into a `Checkpoint`; afterwards
`Checkpoints.changes` compares the namespace with it (variables added, removed or changed; for a
DataFrame the rows and columns added or dropped, dtype changes and a few changed cells, kept apart
from the one-line summary because they are data), and `Checkpoints.undo` puts the copies back: one
step, or every step back to an earlier checkpoint.

Copies: a pandas object under copy-on-write (always on from pandas 3; on pandas 2 when
`pd.options.mode.copy_on_write is True`) is copied lazily (`copy(deep=False)`: nothing is
duplicated until one side is written), otherwise with `copy(deep=True)`; a numpy array with
`.copy()` (an object array with `copy.deepcopy`); immutable values (numbers, str, bytes, None,
tuples and frozensets of them) and functions and classes are kept by reference; anything else with
`copy.deepcopy`. A value that cannot be copied (a module, a generator, an open file, a lock,
anything `deepcopy` refuses) is named in `Checkpoint.not_kept` with the reason, and is left as it
is by undo. pandas and numpy are never imported here: a value is recognised by its type when the
person's code has imported them.

Names bound to the very same object as a checkpointed name are checkpointed with it, and restored
to one object again. What is not tracked: an object reached from outside the namespace (a list
inside another variable, a frame held by a module or a closure) keeps whatever the run did to it;
mutable Python objects inside a pandas object column are shared by the copy, not copied; state
outside Python (files written, a database) is not undone.

The budget counts each checkpoint at its full size, even a lazy copy (it costs that much once the
run writes to the frame). A checkpoint that alone exceeds the budget is refused, so the run can
say beforehand that it cannot be undone; past the budget the oldest checkpoints are let go.

With `files` (a session's `CheckpointFiles`), each checkpoint's copies are also pickled to a file on
a thread of their own, and the history survives a kernel restart: `index()` is what the session
keeps, `adopt()` takes it up in the new kernel, and `undo` reads those checkpoints back from their
files (`from_disk`), every file before anything changes. A value pickle refuses is named in
`Checkpoint.not_on_disk` and left as it is by an undo after a restart. Files of checkpoints let go,
undone or forgotten are deleted. Loading a pickle runs code: see `_checkpoint_files` for the
folder it must come from.

Errors::

    NotebookToolsError
    ├── CheckpointTooLarge                 a checkpoint alone exceeds the budget; history unchanged
    ├── UnknownCheckpoint (+ KeyError)     `undo(to=...)` names no checkpoint of the history; unchanged
    └── CheckpointFileError                a file to undo from is missing, damaged or not ours; unchanged
"""

from __future__ import annotations

import copy
import io
import itertools
import sys
import threading
import time
import types
from collections.abc import Collection, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._exceptions import CheckpointFileError, CheckpointTooLarge, UnknownCheckpoint
from ._checkpoint_files import CheckpointFiles, Restored, Written, file_name

__all__ = [
    "CellChange",
    "Checkpoint",
    "CheckpointFileError",
    "CheckpointTooLarge",
    "Checkpoints",
    "UnknownCheckpoint",
    "VariableChange",
]


class _Absent:
    """The marker of a name that was not in the namespace when the checkpoint was taken."""

    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()
_MAX_CELLS = 5
_SHORT = 80
_ATOMS = (int, float, complex, bool, str, bytes, type(None), range, type(Ellipsis))
_SHARED = (types.FunctionType, types.BuiltinFunctionType, type)
"""Kept by reference, as `copy.deepcopy` keeps them: undo rebinds the name, not their insides."""
_NOT_COPIED: tuple[type, ...] = (
    types.ModuleType,
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
    io.IOBase,
    type(threading.Lock()),
    type(threading.RLock()),
)
_DEEP_ROWS = 200_000
"""Up to this many rows, a pandas object is measured with `memory_usage(deep=True)`."""
_SAMPLE = 1_000
_WORK = 20_000
"""How many objects one estimate may visit inside a plain Python value before it extrapolates."""


@dataclass(eq=False)
class Checkpoint:
    """The variables one run could change, as they were before it."""

    id: str
    """Short and stable within one history: "c1", "c2", ..."""
    label: str
    """What the run was for (its purpose, or its code's first line)."""
    names: tuple[str, ...]
    """Every name checkpointed: those asked for, then their aliases."""
    size: int
    """Bytes it holds, as `Checkpoints.estimate` counts them."""
    created_at: float = field(default_factory=time.time)
    not_kept: dict[str, str] = field(default_factory=dict)
    """Names whose values could not be copied, and why: undo leaves them as they are."""
    aliases: tuple[tuple[str, ...], ...] = ()
    """Groups of names bound to one object when it was taken (restored to one object again)."""
    values: dict[str, Any] = field(default_factory=dict, repr=False)
    """name -> the copy, or the absent marker. Emptied by undo: the copies become the namespace's."""
    file: str | None = None
    """Its file in the session's folder ("c3.pickle"), None when it is not kept on disk."""
    from_disk: bool = False
    """Taken before the kernel restarted: its copies are only in its file (`values` is empty)."""
    not_on_disk: dict[str, str] = field(default_factory=dict)
    """Names its file does not hold (pickle refused them) or could not give back, and why."""
    file_bytes: int | None = None
    """The file's size once written."""
    file_problem: str | None = None
    """Why its file could not be written (a full disk, a folder that is not ours)."""
    files: Any = field(default=None, repr=False)
    """The session's `CheckpointFiles` that holds its file."""

    def sync(self) -> None:
        """Take in how its file was written (the writing thread may have finished since)."""
        files = self.files
        if files is None or self.from_disk:
            return
        done = files.written.get(self.id)
        if isinstance(done, Written):
            self.file_bytes, self.not_on_disk = done.bytes, dict(done.unpicklable)
        elif isinstance(done, str):
            self.file_problem = done

    def to_json(self) -> dict[str, Any]:
        """Its entry in the index kept with the session (no value: names, sizes, reasons)."""
        self.sync()
        return {
            "id": self.id,
            "label": self.label,
            "names": list(self.names),
            "size": self.size,
            "created_at": self.created_at,
            "not_kept": dict(self.not_kept),
            "aliases": [list(group) for group in self.aliases],
            "file": self.file,
            "file_bytes": self.file_bytes,
            "not_on_disk": dict(self.not_on_disk),
            "file_problem": self.file_problem,
        }

    @classmethod
    def from_json(cls, data: Any, files: Any) -> Checkpoint | None:
        """An index entry as a checkpoint whose copies are in `files` (None: the entry is junk).

        The file's name is made again from the id (checked to be one of ours), never taken from the entry.
        """
        try:
            checkpoint_id = str(data["id"])
            name = file_name(checkpoint_id)
            if name is None:
                return None
            return cls(
                checkpoint_id,
                str(data.get("label", "")),
                tuple(str(n) for n in data.get("names", [])),
                int(data.get("size", 0)),
                float(data.get("created_at", 0.0)),
                not_kept={str(k): str(v) for k, v in dict(data.get("not_kept") or {}).items()},
                aliases=tuple(tuple(str(n) for n in g) for g in data.get("aliases", [])),
                file=name if data.get("file") else None,
                from_disk=True,
                not_on_disk={str(k): str(v) for k, v in dict(data.get("not_on_disk") or {}).items()},
                file_bytes=data.get("file_bytes") if isinstance(data.get("file_bytes"), int) else None,
                file_problem=str(data["file_problem"]) if data.get("file_problem") else None,
                files=files,
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


@dataclass(frozen=True)
class CellChange:
    """One changed cell of a DataFrame: these are data values, for the person unless they consent."""

    row: str
    """The index label's repr."""
    column: str
    before: str
    """The value's repr, cut to 80 characters."""
    after: str

    def to_dict(self) -> dict[str, str]:
        """As JSON data."""
        return {"row": self.row, "column": self.column, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class VariableChange:
    """What happened to one variable in a run.

    Everything but `cells` is metadata (names, types, shapes, counts); `cells` holds values.
    """

    name: str
    change: Literal["added", "removed", "changed", "unchanged"]
    before_type: str | None
    """The type's name ("DataFrame", "ndarray", "int"), None when the name did not exist."""
    after_type: str | None
    summary: str
    """One line without any value: "df: DataFrame 344x8 → 333x8: 11 rows dropped"."""
    rows_added: int = 0
    """DataFrame: index labels now present that were not."""
    rows_removed: int = 0
    columns_added: list[str] = field(default_factory=list)
    columns_removed: list[str] = field(default_factory=list)
    dtype_changes: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Column -> (dtype before, dtype after), for columns in both."""
    cells: list[CellChange] = field(default_factory=list)
    """Up to five changed cells of a DataFrame (values: withhold them from the model unless allowed)."""
    elements_changed: int | None = None
    """ndarray of one shape and dtype before and after: how many elements differ."""

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
            "elements_changed": self.elements_changed,
        }


def _pandas() -> Any:
    return sys.modules.get("pandas")


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _is_pandas(value: Any) -> bool:
    pd = _pandas()
    return pd is not None and isinstance(value, pd.DataFrame | pd.Series | pd.Index)


def _is_array(value: Any) -> bool:
    np = _numpy()
    return np is not None and isinstance(value, np.ndarray)


def _pandas_major() -> int:
    try:
        return int(str(_pandas().__version__).split(".")[0])
    except Exception:
        return 0


def _lazy_copies() -> bool:
    """Whether pandas copies lazily (copy-on-write): always from pandas 3, by option in pandas 2."""
    if _pandas_major() >= 3:
        return True
    try:
        return _pandas().options.mode.copy_on_write is True
    except Exception:
        return False


def _is_immutable(value: Any, _depth: int = 0) -> bool:
    """Whether `value` can never change in place, so a checkpoint may keep it by reference."""
    if isinstance(value, _ATOMS):
        return True
    if isinstance(value, tuple | frozenset):
        return _depth < 20 and len(value) <= 10_000 and all(_is_immutable(v, _depth + 1) for v in value)
    return False


def _pandas_bytes(value: Any) -> int:
    """`memory_usage(deep=True)`, or for a large object a shallow count plus sampled object sizes."""
    if len(value) <= _DEEP_ROWS:
        used = value.memory_usage(deep=True)
        return int(used.sum() if hasattr(used, "sum") else used)
    pd = _pandas()
    parts: list[Any] = [value] if isinstance(value, pd.Index) else [value.index]
    if isinstance(value, pd.DataFrame):
        parts += [value.iloc[:, i] for i in range(value.shape[1])]
    elif isinstance(value, pd.Series):
        parts.append(value)
    total = 0
    for part in parts:
        shallow = part.memory_usage(deep=False, **({} if isinstance(part, pd.Index) else {"index": False}))
        total += int(shallow)
        if getattr(part.dtype, "kind", "O") in "biufcmM":
            continue  # numbers and dates: the shallow count is exact
        step = max(1, len(part) // _SAMPLE)
        sample = part[::step] if isinstance(part, pd.Index) else part.iloc[::step]
        kwargs = {} if isinstance(part, pd.Index) else {"index": False}
        extra = int(sample.memory_usage(deep=True, **kwargs)) - int(sample.memory_usage(deep=False, **kwargs))
        total += extra * len(part) // max(1, len(sample))
    return total


def _object_bytes(value: Any, seen: set[int], work: list[int], depth: int = 0) -> int:
    """What a deep copy of `value` holds: `sys.getsizeof` of it and what it reaches, sampled."""
    if _is_immutable(value) or isinstance(value, _SHARED) or id(value) in seen:
        return 0  # kept by reference, or counted already
    seen.add(id(value))
    work[0] -= 1
    if _is_pandas(value):
        return _pandas_bytes(value)
    size = sys.getsizeof(value)
    if _is_array(value):
        size = max(size, int(value.nbytes))
        if value.dtype.kind != "O":
            return size
        items: list[Any] = list(itertools.islice(value.flat, _SAMPLE))
        count = int(value.size)
    elif isinstance(value, dict):
        items = [x for pair in itertools.islice(value.items(), _SAMPLE) for x in pair]
        count = 2 * len(value)
    elif isinstance(value, list | tuple | set | frozenset):
        items = list(itertools.islice(value, _SAMPLE))
        count = len(value)
    elif isinstance(getattr(value, "__dict__", None), dict):
        items, count = [value.__dict__], 1
    else:
        return size
    if work[0] <= 0 or depth >= 6 or not items:
        return size + 64 * count  # no more looking inside: a modest guess per item
    inside = sum(_object_bytes(item, seen, work, depth + 1) for item in items)
    return size + inside * count // len(items)


def _cannot_copy(value: Any) -> str | None:
    """Why `value` has no copy (a module, a generator, an open file, a lock), or None."""
    if isinstance(value, _NOT_COPIED):
        return f"a {type(value).__name__} cannot be copied"
    return None


def _copy(value: Any) -> Any:
    """A copy that a later in-place change of `value` does not reach (raises when deepcopy does)."""
    if _is_immutable(value) or isinstance(value, _SHARED):
        return value
    if _is_pandas(value):
        lazy = _lazy_copies()
        result: Any = value.copy(deep=not lazy)
        if lazy and _pandas_major() < 3:
            _unshare_labels(value, result)
        return result
    if _is_array(value) and value.dtype.kind != "O":
        return value.copy()
    return copy.deepcopy(value)


def _unshare_labels(value: Any, result: Any) -> None:
    """On pandas 2 a shallow copy may share its index objects, whose `name` can be set in place."""
    for axis in ("index", "columns"):
        if hasattr(value, axis) and getattr(result, axis) is getattr(value, axis):
            setattr(result, axis, getattr(value, axis).copy())
    if getattr(result, "attrs", None) is getattr(value, "attrs", None) and hasattr(value, "attrs"):
        result.attrs = copy.deepcopy(value.attrs)


class Checkpoints:
    """The undo history of one namespace: checkpoints taken before runs, undone newest first.

    Args:
        budget_bytes: What the history may hold, counting every checkpoint at its full size.
        files: Where each checkpoint's copies are also written (None: in memory only).
    """

    def __init__(self, budget_bytes: int = 2 * 1024**3, files: CheckpointFiles | None = None) -> None:
        self.budget_bytes = budget_bytes
        self.files = files
        """Where checkpoints taken from now on are written (None: in memory only)."""
        self._history: list[Checkpoint] = []
        self.dropped = 0
        """How many of the oldest checkpoints were let go to stay within the budget."""
        self.dropped_ids: list[str] = []
        """Their ids, oldest first."""
        self._next_id = 1

    @property
    def history(self) -> list[Checkpoint]:
        """The checkpoints that can still be undone, oldest first (a copy of the list)."""
        return list(self._history)

    def estimate(self, namespace: Mapping[str, Any], names: Collection[str]) -> int:
        """Bytes a checkpoint of `names` (and their aliases) would hold.

        A pandas object counts its `memory_usage(deep=True)` total even when its copy is lazy; above
        200,000 rows, its object columns are measured on a sample of about 1,000 values. An ndarray
        counts `nbytes`; immutable values 0 (they are kept by reference); other objects their
        `sys.getsizeof` and what they hold, measured on samples and a few levels deep.

        Args:
            namespace: The variables, by name.
            names: The names a run can change.
        """
        wanted, _ = _with_aliases(namespace, names)
        seen: set[int] = set()
        work = [_WORK]
        total = 0
        for name in wanted:
            value = namespace.get(name, _ABSENT)
            if value is _ABSENT:
                continue
            try:
                total += _object_bytes(value, seen, work)
            except Exception:
                total += 64  # unmeasurable: the copy will likely fail too and hold nothing
        return total

    def take(self, namespace: Mapping[str, Any], names: Collection[str], label: str) -> Checkpoint:
        """Copy the values of `names`, and of every other name bound to the same objects, as they are now.

        A name absent from the namespace is recorded as absent: undo deletes it if the run made it.

        Args:
            namespace: The variables, by name.
            names: The names the run can change.
            label: What the run is for, shown in the history.

        Raises:
            CheckpointTooLarge: This checkpoint alone exceeds the budget; nothing is kept.
        """
        wanted, aliases = _with_aliases(namespace, names)
        size = self.estimate(namespace, wanted)
        if size > self.budget_bytes:
            raise CheckpointTooLarge(wanted, size, self.budget_bytes)
        values: dict[str, Any] = {}
        not_kept: dict[str, str] = {}
        copies: dict[int, Any] = {}
        for name in wanted:
            value = namespace.get(name, _ABSENT)
            if value is _ABSENT:
                values[name] = _ABSENT
                continue
            reason = _cannot_copy(value)
            if reason is not None:
                not_kept[name] = reason
                continue
            try:
                if id(value) not in copies:
                    copies[id(value)] = _copy(value)
                values[name] = copies[id(value)]
            except Exception as exc:
                not_kept[name] = f"{type(exc).__name__}: {exc}"[:200]
        checkpoint_id = f"c{self._next_id}"
        self._next_id += 1
        checkpoint = Checkpoint(checkpoint_id, label, tuple(wanted), size, not_kept=not_kept, aliases=aliases)
        checkpoint.values = values
        self._write(checkpoint)
        self._history.append(checkpoint)
        while len(self._history) > 1 and sum(c.size for c in self._history) > self.budget_bytes:
            oldest = self._history.pop(0)
            _let_go(oldest)
            self.dropped += 1
            self.dropped_ids.append(oldest.id)
        return checkpoint

    def _write(self, checkpoint: Checkpoint) -> None:
        """Queue its copies for its file, one entry per object (aliases share it), when files are kept."""
        files = self.files
        if files is None:
            return
        objects: dict[int, tuple[list[str], Any]] = {}
        absent = []
        for name, value in checkpoint.values.items():
            if value is _ABSENT:
                absent.append(name)
            else:
                objects.setdefault(id(value), ([], value))[0].append(name)
        checkpoint.file = files.write(checkpoint.id, [(tuple(n), v) for n, v in objects.values()], absent)
        if checkpoint.file is not None:
            checkpoint.files = files
        else:
            checkpoint.file_problem = files.problem

    def index(self) -> list[dict[str, Any]]:
        """The history as kept with the session: one entry per checkpoint, oldest first (no values)."""
        return [c.to_json() for c in self._history]

    def adopt(self, entries: Any, files: CheckpointFiles) -> None:
        """Take up a history kept on disk by an earlier kernel (replacing this one; no file is deleted).

        Ids carry on after the highest adopted, so a new checkpoint never takes an old one's file.

        Args:
            entries: `index()` as kept with the session (junk entries are passed over).
            files: The session's folder.
        """
        history = [c for c in (Checkpoint.from_json(e, files) for e in entries or []) if c is not None]
        self._history = history
        self.files = files
        for checkpoint in history:
            self._next_id = max(self._next_id, int(checkpoint.id[1:]) + 1)

    def changes(
        self, namespace: Mapping[str, Any], checkpoint: Checkpoint, also: Collection[str] = ()
    ) -> list[VariableChange]:
        """What changed in the namespace since `checkpoint` was taken; unchanged names are left out.

        Names whose values were not kept cannot be compared and are left out too. Never raises: a
        value that cannot be compared counts as changed.

        Args:
            namespace: The variables, by name.
            checkpoint: A checkpoint of this history, not yet undone.
            also: Names the caller knows the run may have added (absent unless checkpointed).
        """
        found = []
        for name in dict.fromkeys([*checkpoint.names, *also]):
            if name in checkpoint.not_kept:
                continue
            before = checkpoint.values.get(name, _ABSENT)
            after = namespace.get(name, _ABSENT)
            try:
                change = _compare(name, before, after)
            except Exception:
                change = VariableChange(
                    name, "changed", _type(before), _type(after), f"{name}: {_type(after)} changed"
                )
            if change.change != "unchanged":
                found.append(change)
        return found

    def undo(self, namespace: MutableMapping[str, Any], to: str | None = None) -> list[Checkpoint]:
        """Restore the newest checkpoint, or every one from the newest back to and including `to`.

        They are restored newest first, so the namespace ends as it was just before the oldest of them
        was taken; they leave the history. A restored value is the stored copy itself (the checkpoint
        forgets it); names whose values were not kept are left as they are.

        Args:
            namespace: The variables, by name (changed in place).
            to: A checkpoint's id; None for the newest.

        A checkpoint taken before a restart (`from_disk`) is read back from its file first; its
        names the file does not hold are left as they are and named in its `not_on_disk`. Every file
        is read before anything changes, so a refused undo leaves the namespace and the history as
        they were.

        Returns:
            The restored checkpoints, newest first (empty when the history is).

        Raises:
            UnknownCheckpoint: `to` is not in the history; nothing changes.
            CheckpointFileError: a checkpoint's file is missing, damaged or not ours; nothing changes.
        """
        if to is None:
            if not self._history:
                return []
            index = len(self._history) - 1
        else:
            ids = [c.id for c in self._history]
            if to not in ids:
                raise UnknownCheckpoint(to, ids, self.dropped_ids)
            index = ids.index(to)
        restored = list(reversed(self._history[index:]))
        read: dict[str, Restored] = {}
        for checkpoint in restored:
            if checkpoint.from_disk:
                read[checkpoint.id] = self._read(checkpoint)
        del self._history[index:]
        for checkpoint in restored:
            values = checkpoint.values
            if checkpoint.id in read:
                back = read.pop(checkpoint.id)
                checkpoint.not_on_disk = {**checkpoint.not_on_disk, **back.not_restored}
                values = {**back.values, **dict.fromkeys(back.absent, _ABSENT)}
            for name, value in values.items():
                if value is _ABSENT:
                    namespace.pop(name, None)
                else:
                    namespace[name] = value
            _let_go(checkpoint)  # the copies are the namespace's now: never shared with a later step
        return restored

    def _read(self, checkpoint: Checkpoint) -> Restored:
        """Its copies back from its file (raises CheckpointFileError naming what can still be undone)."""
        ids = [c.id for c in self._history]
        newer = ids[ids.index(checkpoint.id) + 1 :]
        if checkpoint.file is None or checkpoint.files is None:
            why = checkpoint.file_problem or "no file was written for it"
            raise CheckpointFileError(checkpoint.id, f"it was not kept on disk ({why})", newer)
        try:
            return checkpoint.files.read(checkpoint.id)  # type: ignore[no-any-return]
        except CheckpointFileError as exc:
            raise CheckpointFileError(checkpoint.id, exc.problem, newer) from None

    def forget(self) -> None:
        """Drop the whole history and its files (ids keep counting up)."""
        for checkpoint in self._history:
            _let_go(checkpoint)
        self._history.clear()


def _let_go(checkpoint: Checkpoint) -> None:
    """Forget its copies and delete its file (one still being written is deleted when done)."""
    checkpoint.values = {}
    if checkpoint.files is not None and checkpoint.file is not None:
        checkpoint.sync()
        checkpoint.files.delete([checkpoint.id])


def _with_aliases(
    namespace: Mapping[str, Any], names: Collection[str]
) -> tuple[list[str], tuple[tuple[str, ...], ...]]:
    """`names` then every other name bound to the same objects; and the groups of such names."""
    wanted = list(dict.fromkeys(names))
    targets = {id(namespace[n]) for n in wanted if n in namespace and not _is_immutable(namespace[n])}
    if not targets:
        return wanted, ()
    by_id: dict[int, list[str]] = {}
    for name, value in namespace.items():
        if id(value) in targets:
            by_id.setdefault(id(value), []).append(name)
    groups = tuple(tuple(g) for g in by_id.values() if len(g) > 1)
    for group in groups:
        wanted.extend(n for n in group if n not in wanted)
    return wanted, groups


def _type(value: Any) -> str | None:
    return None if value is _ABSENT else type(value).__name__


def _dims(value: Any) -> str:
    """The dimensions: "344x8" for a shaped value, "of 3" for a sized one, "" otherwise."""
    try:
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            return "x".join(str(d) for d in shape)
        if isinstance(value, str | bytes):
            return ""
        return f"of {len(value)}"
    except Exception:
        return ""


def _equal(before: Any, after: Any) -> bool:
    """Whether two values are the same; never raises (a failure to compare is "not equal")."""
    try:
        if before is after:
            return True
        if type(before) is not type(after):
            return False
        if _is_pandas(before):
            return bool(
                before.equals(after)
                and _labels_equal(before, after)
                and (not hasattr(before, "dtypes") or before.dtypes.equals(after.dtypes))
                and getattr(before, "dtype", None) == getattr(after, "dtype", None)
                and getattr(before, "name", None) == getattr(after, "name", None)
                and getattr(before, "attrs", None) == getattr(after, "attrs", None)
            )
        if _is_array(before):
            np = _numpy()
            return bool(
                before.dtype == after.dtype
                and np.array_equal(before, after, equal_nan=before.dtype.kind in "fc")
            )
        return bool(before == after)
    except Exception:
        return False


def _labels_equal(before: Any, after: Any) -> bool:
    """Index and column labels, in order, with their types and names (`equals` ignores some)."""
    pd = _pandas()
    axes = ("index", "columns") if isinstance(before, pd.DataFrame) else ("index",)
    if isinstance(before, pd.Index):
        return bool(before.dtype == after.dtype and list(before.names) == list(after.names))
    for axis in axes:
        left, right = getattr(before, axis), getattr(after, axis)
        if not (left.equals(right) and left.dtype == right.dtype and list(left.names) == list(right.names)):
            return False
    return True


def _compare(name: str, before: Any, after: Any) -> VariableChange:
    if before is _ABSENT and after is _ABSENT:
        return VariableChange(name, "unchanged", None, None, f"{name}: absent")
    if before is _ABSENT:
        return VariableChange(
            name, "added", None, _type(after), f"{name}: new {_type(after)} {_dims(after)}".rstrip()
        )
    if after is _ABSENT:
        return VariableChange(name, "removed", _type(before), None, f"{name}: removed")
    if _equal(before, after):
        return VariableChange(name, "unchanged", _type(before), _type(after), f"{name}: unchanged")
    pd = _pandas()
    if pd is not None and isinstance(before, pd.DataFrame) and isinstance(after, pd.DataFrame):
        try:
            return _frame_change(name, before, after)
        except Exception:
            pass  # an unusual frame (duplicate column labels, ...): the plain summary below
    return _plain_change(name, before, after)


def _plain_change(name: str, before: Any, after: Any) -> VariableChange:
    kind_before, kind_after = _type(before), _type(after)
    dims_before, dims_after = _dims(before), _dims(after)
    if kind_before == kind_after and dims_before == dims_after:
        what = f"{kind_after} {dims_after} changed" if dims_after else f"{kind_after} changed"
    else:
        what = f"{kind_before} {dims_before}".rstrip() + " → " + f"{kind_after} {dims_after}".rstrip()
    elements = None
    if _is_array(before) and _is_array(after):
        if before.dtype != after.dtype:
            what += f": dtype {before.dtype} → {after.dtype}"
        if before.shape == after.shape:
            try:
                np = _numpy()
                same = before == after
                if before.dtype.kind in "fc" and after.dtype.kind in "fc":
                    same = same | (np.isnan(before) & np.isnan(after))
                elements = int(np.size(same) - np.count_nonzero(same))
                what += f"{',' if ':' in what else ':'} {elements} elements changed"
            except Exception:
                pass
    elif _is_pandas(before) and _is_pandas(after):
        dtype_before, dtype_after = getattr(before, "dtype", None), getattr(after, "dtype", None)
        if dtype_before is not None and str(dtype_before) != str(dtype_after):
            what += f": dtype {dtype_before} → {dtype_after}"
    return VariableChange(
        name, "changed", kind_before, kind_after, f"{name}: {what}", elements_changed=elements
    )


def _frame_change(name: str, before: Any, after: Any) -> VariableChange:
    rows_removed = int((~before.index.isin(after.index)).sum())
    rows_added = int((~after.index.isin(before.index)).sum())
    columns_before = [str(c) for c in before.columns]
    columns_after = [str(c) for c in after.columns]
    added = [c for c in columns_after if c not in columns_before]
    removed = [c for c in columns_before if c not in columns_after]
    dtypes: dict[str, tuple[str, str]] = {}
    dtypes_after = after.dtypes
    for column, dtype in before.dtypes.items():
        if column in dtypes_after.index and str(dtype) != str(dtypes_after[column]):
            dtypes[str(column)] = (str(dtype), str(dtypes_after[column]))
    cells = _changed_cells(before, after)
    parts = []
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
    if not parts:
        parts.append("order, labels or attributes changed")
    summary = f"{name}: DataFrame {_dims(before)} → {_dims(after)}: " + "; ".join(parts)
    return VariableChange(
        name,
        "changed",
        "DataFrame",
        "DataFrame",
        summary,
        rows_added=rows_added,
        rows_removed=rows_removed,
        columns_added=added,
        columns_removed=removed,
        dtype_changes=dtypes,
        cells=cells,
    )


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def _changed_cells(before: Any, after: Any) -> list[CellChange]:
    """Up to five cells, in rows and columns present before and after, whose values differ."""
    if not (before.index.is_unique and after.index.is_unique):
        return []
    if not (before.columns.is_unique and after.columns.is_unique):
        return []
    rows = before.index.intersection(after.index)
    found: list[CellChange] = []
    for column in before.columns:
        if len(found) >= _MAX_CELLS:
            break
        if column not in after.columns:
            continue
        try:
            left = before[column].reindex(rows)
            right = after[column].reindex(rows)
            same = left.eq(right).to_numpy(dtype=bool, na_value=False) | (
                left.isna().to_numpy() & right.isna().to_numpy()
            )
            for row in rows[~same][: _MAX_CELLS - len(found)]:
                found.append(CellChange(_short(row), str(column), _short(left[row]), _short(right[row])))
        except Exception:
            continue  # not comparable (a category against text, ...): the dtype change says enough
    return found
