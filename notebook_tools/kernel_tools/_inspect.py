"""Seeing the namespace without its values: variables by name, type and shape, one of them by aggregates.

What may leave the kernel from here is metadata (names, types, shapes, lengths, memory, column
names and dtypes, public attribute names) and aggregates (counts, nulls, distinct counts, numeric
summaries, date ranges). Never a row, a cell, a string, a category label, a dict key or a list
element, and never a `repr()` or `str()` of a value (a repr is data; the string forms of cells are
measured, never sent).

Precision is part of the policy, not a display choice:

- Numeric summaries (mean, std, min, quartiles, max; timedelta minimum and maximum in seconds) are
  rounded to four significant digits. A minimum or a maximum *is* a cell, and the mean of a
  one-row column is one: rounded, an aggregate describes the data without reproducing an exact
  value (a maximum of 918273.645 is sent as 918300.0). A value with four significant digits or
  fewer (3, 2007, 0.25) survives rounding, as it would coincide with any count.
- Dates (datetime minimum and maximum, tz-aware or not) are sent to the day, as ISO dates, with
  `range_days`: the time of day is what makes a timestamp identify one event, and it stays here.

Every function here is total: an object that raises while inspected is reported with its name and
type and an `error`, never by an exception. Nothing is called on an arbitrary object beyond
attribute lookups of `shape`: lengths and iteration go through the builtin base class, so an
overridden `__len__` or `__iter__` never runs.

pandas and numpy are never imported here: a value of theirs was made by code that imported them,
so they are found in `sys.modules`.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import inspect
import itertools
import math
import sys
import types
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["MAX_COLUMNS", "MAX_VARIABLES", "describe", "is_data", "list_variables"]

MAX_VARIABLES = 500
"""Variables listed at most; `more` counts the rest."""
MAX_COLUMNS = 200
"""Columns listed or described at most; `columns_more` counts the rest."""

_DEEP_MEMORY_ROWS = 1_000_000  # below this, memory counts object cells exactly; above, an estimate
_SAMPLE = 10_000  # elements (or dict values) whose types are counted
_MAX_ATTRIBUTES = 50
_MAX_DIR = 2_000  # names of a `dir()` considered at most
_MAX_DIMENSION = 2**63  # a `shape` entry at or beyond this is junk, not a size
_HIDDEN_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
_HIDDEN_PACKAGES = ("notebook_tools", "ipywidgets", "anywidget", "IPython", "ipykernel")
_NOT_DATA = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    type,
)
_SIZED = (dict, list, tuple, set, frozenset, str, bytes, bytearray)
_SCALARS = (
    int,
    float,
    complex,
    decimal.Decimal,
    fractions.Fraction,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    type(None),
)
_SCALAR_NOTE = "a single value: it is data, seen only by running code (under the data policy)"


def list_variables(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """The person's variables in a namespace, by metadata only; never raises.

    Left out: private names (a leading `_`), IPython's own (`In`, `Out`, `exit`, `quit`,
    `get_ipython`, `open`), non-string keys, modules, functions, methods, classes, and objects of
    notebook_tools, ipywidgets, anywidget, IPython or ipykernel.

    Args:
        namespace: The notebook's globals.

    Returns:
        `{"variables": [entry, ...], "more": n}`, entries sorted by name, at most `MAX_VARIABLES`
        of them; `more` counts the variables left out past that bound. Each entry has `name` and
        `type` (the type's name, like `"DataFrame"`), and where they apply:

        - `shape`: list of ints (DataFrame, Series, Index, ndarray, any object whose `shape` is a
          tuple of ints);
        - `length`: int (dict, list, tuple, set, frozenset, str, bytes, bytearray);
        - `memory`: bytes (pandas `memory_usage`, ndarray `nbytes`, `sys.getsizeof` of builtins),
          with `"memory_estimated": True` when a pandas object of 1,000,000 rows or more was
          measured without looking into its object cells;
        - `dtype`: str (Series, Index, ndarray);
        - `columns`: `[{"name": str, "dtype": str}, ...]` of a DataFrame, at most `MAX_COLUMNS`,
          with `columns_more` counting the rest;
        - `error`: `"could not be inspected"` instead of the above when the value raised.

        When the namespace itself cannot be read: `{"variables": [], "more": 0, "error": ...}`.
    """
    try:
        names = sorted(name for name in list(namespace) if type(name) is str and not _hidden_name(name))
    except Exception:
        return {"variables": [], "more": 0, "error": "the namespace could not be read"}
    entries: list[dict[str, Any]] = []
    more = 0
    for name in names:
        try:
            value = namespace[name]
        except Exception:
            continue
        try:
            shown = is_data(value)
        except Exception:
            shown = True  # it is the person's (it raised for us): listed, by name and type
        if not shown:
            continue
        if len(entries) >= MAX_VARIABLES:
            more += 1
            continue
        entries.append(_entry(name, value))
    return {"variables": entries, "more": more}


def describe(value: Any) -> dict[str, Any]:
    """One value by aggregates only; never raises, never sends a cell, element, key or label.

    Args:
        value: Any object of the namespace.

    Returns:
        Always `type`. Then, by kind (numbers rounded to four significant digits, dates to the
        day, NaN and infinities as None; see the module docstring):

        - DataFrame: `shape`, `memory` (and `memory_estimated`), `columns`: one column summary
          each, at most `MAX_COLUMNS` (`columns_more` counts the rest).
        - Series (and Index): `shape`, `memory`, the column summary without `name`, and
          `series_name` when it has one.
        - ndarray: `shape`, `dtype`, `memory`; float and complex add `nans`; integer and float
          add the numeric summary over all finite elements; bool adds `true`.
        - dict: `length`, `key_types` and `value_types` (type name → count over the first 10,000).
        - list, tuple, set, frozenset: `length`, `element_types` (the same counts).
        - str, bytes, bytearray: `length`.
        - numbers, None, dates, times and numpy scalars: `note` only (a scalar is a value).
        - anything else: `shape` when it is a tuple of ints, and `attributes`: up to 50 public
          attribute names that are not methods (looked up statically: no property runs).

        A column summary is `name`, `dtype`, `nulls`, `distinct` (non-null distinct values; None
        when cells are unhashable), and by dtype: numeric (not bool) `mean`, `std` (sample,
        ddof=1; None below two values), `min`, `p25`, `p50`, `p75`, `max`; bool `true` (count);
        datetime `min`, `max` (ISO dates) and `range_days`; timedelta `min_seconds`,
        `max_seconds`; category `categories` (a count) and, like strings and objects,
        `min_length`, `max_length`, `mean_length` of the cells' string forms. A column that raises
        (a cell whose `str()` raises) is `name`, `dtype` and `error`; the other columns are described.

        When a value raises while described:
        `{"type": ..., "error": "could not be described: <ExceptionType>"}`.
    """
    try:
        return _describe(value)
    except Exception as exc:
        return {"type": _type_name(value), "error": f"could not be described: {type(exc).__name__}"}


# -- which variables are shown ---------------------------------------------------------------------


def _hidden_name(name: str) -> bool:
    return name.startswith("_") or name in _HIDDEN_NAMES


def is_data(value: Any) -> bool:
    """Whether a variable may be the person's data (not code, nor an object of ours or Jupyter's)."""
    kind = type(value)  # never `value.__class__`, which an object may fake
    if issubclass(kind, _NOT_DATA):
        return False
    module = getattr(kind, "__module__", None)
    if not isinstance(module, str):
        return True
    return not any(module == package or module.startswith(package + ".") for package in _HIDDEN_PACKAGES)


# -- metadata --------------------------------------------------------------------------------------


def _pandas() -> Any:
    return sys.modules.get("pandas")


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _is(value: Any, kind: Any) -> bool:
    """`isinstance` by the real type (an object's `__class__` may lie, or raise)."""
    return kind is not None and issubclass(type(value), kind)


def _type_name(value: Any) -> str:
    try:
        name = type(value).__name__
    except Exception:
        return "object"
    return name if isinstance(name, str) else "object"


def _builtin_base(value: Any) -> Any:
    """The sized builtin a value is an instance of, or None; its own `__len__`/`__iter__` are not trusted."""
    for base in type(value).__mro__:
        if base in _SIZED:
            return base
    return None


def _entry(name: str, value: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "type": _type_name(value)}
    try:
        entry.update(_metadata(value))
    except Exception:
        entry["error"] = "could not be inspected"
    return entry


def _metadata(value: Any) -> dict[str, Any]:
    """Shape, length, memory, dtype and columns of a value, as far as they are cheap and safe."""
    pd, np = _pandas(), _numpy()
    if pd is not None and _is(value, pd.DataFrame):
        rows, width = (int(d) for d in value.shape)
        deep = rows < _DEEP_MEMORY_ROWS
        found: dict[str, Any] = {
            "shape": [rows, width],
            "memory": int(value.memory_usage(deep=deep).sum()),
            "columns": [
                {"name": str(column), "dtype": str(dtype)}
                for column, dtype in itertools.islice(value.dtypes.items(), MAX_COLUMNS)
            ],
        }
        if width > MAX_COLUMNS:
            found["columns_more"] = width - MAX_COLUMNS
        if not deep:
            found["memory_estimated"] = True
        return found
    if pd is not None and (_is(value, pd.Series) or _is(value, pd.Index)):
        deep = len(value) < _DEEP_MEMORY_ROWS
        found = {
            "shape": [len(value)],
            "dtype": str(value.dtype),
            "memory": int(value.memory_usage(deep=deep)),
        }
        if not deep:
            found["memory_estimated"] = True
        return found
    if np is not None and _is(value, np.ndarray):
        return {
            "shape": [int(d) for d in value.shape],
            "dtype": str(value.dtype),
            "memory": int(value.nbytes),
        }
    base = _builtin_base(value)
    if base is not None:
        return {"length": int(base.__len__(value)), "memory": int(sys.getsizeof(value))}
    if _is_scalar(value):
        return {"memory": int(sys.getsizeof(value))}
    shape = _shape(value)
    return {} if shape is None else {"shape": shape}


def _shape(value: Any) -> list[int] | None:
    """An object's own `shape`, when it is a short tuple of plain ints (anything else is junk)."""
    shape = getattr(value, "shape", None)
    if not isinstance(shape, tuple) or len(shape) > 32:
        return None
    dimensions = tuple.__iter__(shape)  # a tuple subclass (torch.Size) iterates as a tuple
    sizes = [d for d in dimensions if type(d) is int and 0 <= d < _MAX_DIMENSION]
    return sizes if len(sizes) == tuple.__len__(shape) else None


def _is_scalar(value: Any) -> bool:
    np = _numpy()
    return _is(value, _SCALARS) or (np is not None and _is(value, np.generic))


# -- aggregates ------------------------------------------------------------------------------------


def _describe(value: Any) -> dict[str, Any]:
    pd, np = _pandas(), _numpy()
    found: dict[str, Any] = {"type": _type_name(value)}
    if pd is not None and _is(value, pd.DataFrame):
        found.update(_metadata(value))
        width = min(int(value.shape[1]), MAX_COLUMNS)
        found["columns"] = [_guarded_column(str(value.columns[i]), value.iloc[:, i]) for i in range(width)]
        return found
    if pd is not None and (_is(value, pd.Series) or _is(value, pd.Index)):
        found.update(_metadata(value))
        series = value if _is(value, pd.Series) else pd.Series(value, copy=False)
        summary = _column("", series)
        del summary["name"]
        found.update(summary)
        if value.name is not None:
            found["series_name"] = str(value.name)
        return found
    if np is not None and _is(value, np.ndarray):
        found.update(_metadata(value))
        found.update(_array(value, np))
        return found
    base = _builtin_base(value)
    if base is dict:
        found["length"] = dict.__len__(value)
        found["key_types"] = _type_counts(dict.keys(value))
        found["value_types"] = _type_counts(dict.values(value))
        return found
    if base is not None and base not in (str, bytes, bytearray):
        found["length"] = base.__len__(value)
        found["element_types"] = _type_counts(base.__iter__(value))
        return found
    if base is not None:
        found["length"] = base.__len__(value)
        return found
    if _is_scalar(value):
        found["note"] = _SCALAR_NOTE
        return found
    try:
        shape = _shape(value)
    except Exception:
        shape = None
    if shape is not None:
        found["shape"] = shape
    found["attributes"] = _attribute_names(value)
    return found


def _type_counts(items: Any) -> dict[str, int]:
    """Type name → count over the first `_SAMPLE` items (the items themselves stay here)."""
    iterator: Iterator[Any] = iter(items)
    return dict(Counter(_type_name(item) for item in itertools.islice(iterator, _SAMPLE)))


def _attribute_names(value: Any) -> list[str]:
    """Up to 50 public attribute names that are not methods; no attribute is evaluated.

    `inspect.getattr_static` finds each name without running properties or `__getattr__`; a name
    that is not an identifier (a `__dir__` may list anything) is left out.
    """
    try:
        listed = dir(value)
    except Exception:
        return []
    names: list[str] = []
    for name in itertools.islice(listed, _MAX_DIR):
        if len(names) >= _MAX_ATTRIBUTES:
            break
        if type(name) is not str or name.startswith("_") or not name.isidentifier():
            continue
        try:
            found = inspect.getattr_static(value, name)
        except Exception:
            continue
        if not isinstance(
            found, types.FunctionType | types.MethodDescriptorType | classmethod | staticmethod
        ):
            names.append(name)
    return names


def _round(value: Any) -> float | None:
    """A number rounded to four significant digits (None for NaN, infinities and non-numbers)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    return float(f"{number:.4g}")


def _numbers(values: Any, np: Any) -> dict[str, Any]:
    """The numeric summary of a non-empty float64 array of finite numbers."""
    with np.errstate(all="ignore"):  # an overflow becomes inf, sent as None; never a warning
        p25, p50, p75 = np.percentile(values, [25, 50, 75])
        return {
            "mean": _round(values.mean()),
            "std": _round(values.std(ddof=1)) if values.size > 1 else None,
            "min": _round(values.min()),
            "p25": _round(p25),
            "p50": _round(p50),
            "p75": _round(p75),
            "max": _round(values.max()),
        }


def _array(array: Any, np: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    kind = array.dtype.kind
    if kind in "fc":
        found["nans"] = int(np.isnan(array).sum())
    if kind == "b":
        found["true"] = int(np.count_nonzero(array))
    if kind in "iuf" and array.size:
        numbers = array.ravel().astype("float64")
        numbers = numbers[np.isfinite(numbers)]
        if numbers.size:
            found.update(_numbers(numbers, np))
    return found


def _guarded_column(name: str, series: Any) -> dict[str, Any]:
    """A column's summary, or its name, dtype and error: one bad column leaves the others described."""
    try:
        return _column(name, series)
    except Exception as exc:
        try:
            dtype = str(series.dtype)
        except Exception:
            dtype = "unknown"
        return {"name": name, "dtype": dtype, "error": f"could not be described: {type(exc).__name__}"}


def _column(name: str, series: Any) -> dict[str, Any]:
    """One column (or Series) by aggregates: see `describe`."""
    pd, np = _pandas(), _numpy()
    dtype = series.dtype
    found: dict[str, Any] = {"name": name, "dtype": str(dtype), "nulls": int(series.isna().sum())}
    try:
        found["distinct"] = int(series.nunique(dropna=True))
    except Exception:  # unhashable cells (lists, dicts)
        found["distinct"] = None
    types_ = pd.api.types
    if types_.is_bool_dtype(dtype):
        found["true"] = int(series.dropna().astype(bool).sum())
    elif types_.is_numeric_dtype(dtype) and not types_.is_complex_dtype(dtype):
        numbers = series.dropna().to_numpy(dtype="float64", na_value=np.nan)
        numbers = numbers[np.isfinite(numbers)]
        if numbers.size:
            found.update(_numbers(numbers, np))
    elif types_.is_datetime64_any_dtype(dtype):
        present = series.dropna()
        if len(present):
            low, high = present.min(), present.max()
            found.update(
                {
                    "min": low.date().isoformat(),
                    "max": high.date().isoformat(),
                    "range_days": int((high - low).days),
                }
            )
    elif types_.is_timedelta64_dtype(dtype):
        seconds = series.dropna().dt.total_seconds()
        if len(seconds):
            found.update({"min_seconds": _round(seconds.min()), "max_seconds": _round(seconds.max())})
    elif not types_.is_complex_dtype(dtype):
        if isinstance(dtype, pd.CategoricalDtype):
            found["categories"] = len(dtype.categories)
        lengths = series.dropna().astype(str).str.len()
        if len(lengths):
            found.update(
                {
                    "min_length": int(lengths.min()),
                    "max_length": int(lengths.max()),
                    "mean_length": _round(lengths.mean()),
                }
            )
    return found
