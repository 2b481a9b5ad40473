"""Seeing the namespace without its values: variables by name, type and shape, one of them by aggregates.

What may leave the kernel from here is metadata (names, types, shapes, memory, column names and
dtypes) and aggregates (counts, nulls, distinct counts, numeric summaries rounded to four
significant digits, date ranges to the day). Never a row, a cell, a string, a category label, a
dict key or a list element, and never a `repr()` (a repr is data). Numeric summaries are rounded
so that an aggregate cannot reproduce an exact cell value (a maximum of 918273.645 is sent as
918300.0). Every function here is total: an object that raises while inspected is listed with
its name and type only.

pandas and numpy are never imported here: a value of theirs was imported by whoever made it.
"""

from __future__ import annotations

import math
import sys
import types
from collections import Counter
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_COLUMNS", "MAX_VARIABLES", "describe", "list_variables"]

MAX_VARIABLES = 500
MAX_COLUMNS = 200
_DEEP_MEMORY_ROWS = 1_000_000
_SAMPLE = 10_000
_HIDDEN = {"In", "Out", "exit", "quit", "get_ipython", "open"}
_HIDDEN_MODULES = ("notebook_tools", "ipywidgets", "anywidget", "IPython", "ipykernel")


def _pandas() -> Any:
    return sys.modules.get("pandas")


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _round(value: Any) -> float | None:
    """A number rounded to four significant digits (None for NaN, infinities, non-numbers)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    return float(f"{number:.4g}")


def _shown(name: str, value: Any) -> bool:
    """Whether a variable is the person's data (not a module, function, class, or our own object)."""
    if name.startswith("_") or name in _HIDDEN:
        return False
    if isinstance(
        value, types.ModuleType | types.FunctionType | types.BuiltinFunctionType | types.MethodType | type
    ):
        return False
    module = getattr(type(value), "__module__", "") or ""
    return not module.startswith(_HIDDEN_MODULES)


def list_variables(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """The person's variables: `{"variables": [{name, type, ...}], "more": n}` (`more`: left out past 500).

    Each entry has `name` and `type`, and where it applies `shape`, `length`, `memory` (bytes;
    `memory_estimated` when it is counted without looking into object cells), `dtype`, `columns`
    (`[{name, dtype}]`, at most 200, `columns_more` beyond) — or `error` when it could not be inspected.
    """
    try:
        names = sorted(str(n) for n in namespace)
    except Exception:
        return {"variables": [], "more": 0, "error": "the namespace could not be read"}
    shown = []
    for name in names:
        try:
            value = namespace[name]
        except Exception:
            continue
        try:
            if not _shown(name, value):
                continue
        except Exception:
            continue
        shown.append((name, value))
    entries = [_entry(name, value) for name, value in shown[:MAX_VARIABLES]]
    return {"variables": entries, "more": max(0, len(shown) - MAX_VARIABLES)}


def _type_name(value: Any) -> str:
    try:
        return type(value).__name__
    except Exception:
        return "object"


def _entry(name: str, value: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "type": _type_name(value)}
    try:
        entry.update(_shape_of(value))
    except Exception:
        entry["error"] = "could not be inspected"
    return entry


def _shape_of(value: Any) -> dict[str, Any]:
    """Shape, length, memory, dtype and columns of a value, as far as they are cheap and safe."""
    pd, np = _pandas(), _numpy()
    if pd is not None and isinstance(value, pd.DataFrame):
        deep = len(value) < _DEEP_MEMORY_ROWS
        columns = [{"name": str(c), "dtype": str(t)} for c, t in list(value.dtypes.items())[:MAX_COLUMNS]]
        found: dict[str, Any] = {
            "shape": [int(d) for d in value.shape],
            "memory": int(value.memory_usage(deep=deep).sum()),
            "columns": columns,
        }
        if not deep:
            found["memory_estimated"] = True
        if value.shape[1] > MAX_COLUMNS:
            found["columns_more"] = int(value.shape[1] - MAX_COLUMNS)
        return found
    if pd is not None and isinstance(value, pd.Series | pd.Index):
        deep = len(value) < _DEEP_MEMORY_ROWS
        found = {
            "shape": [len(value)],
            "dtype": str(value.dtype),
            "memory": int(value.memory_usage(deep=deep)),
        }
        if not deep:
            found["memory_estimated"] = True
        return found
    if np is not None and isinstance(value, np.ndarray):
        return {
            "shape": [int(d) for d in value.shape],
            "dtype": str(value.dtype),
            "memory": int(value.nbytes),
        }
    if isinstance(value, list | tuple | dict | set | frozenset | str | bytes | bytearray):
        return {"length": len(value), "memory": sys.getsizeof(value)}
    if isinstance(value, int | float | complex | bool) or value is None:
        return {"memory": sys.getsizeof(value)}
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) and len(shape) <= 32:
        return {"shape": list(shape)}
    return {}


def describe(value: Any) -> dict[str, Any]:
    """One value by aggregates only (see the module docstring); never raises."""
    try:
        return _describe(value)
    except Exception as exc:
        return {"type": _type_name(value), "error": f"could not be described: {type(exc).__name__}"}


def _describe(value: Any) -> dict[str, Any]:
    pd, np = _pandas(), _numpy()
    kind = _type_name(value)
    if pd is not None and isinstance(value, pd.DataFrame):
        columns = [_column(str(c), value[c]) for c in list(value.columns)[:MAX_COLUMNS]]
        found: dict[str, Any] = {"type": kind, **_shape_of(value), "columns": columns}
        return found
    if pd is not None and isinstance(value, pd.Series):
        return {"type": kind, "shape": [len(value)], **_column(str(value.name), value)}
    if np is not None and isinstance(value, np.ndarray):
        found = {
            "type": kind,
            "shape": [int(d) for d in value.shape],
            "dtype": str(value.dtype),
            "memory": int(value.nbytes),
        }
        if value.dtype.kind in "fc":
            found["nans"] = int(np.isnan(value).sum())
        if value.dtype.kind in "iuf" and value.size:
            flat = value.ravel().astype("float64")
            flat = flat[np.isfinite(flat)]
            if flat.size:
                found.update(_numbers(flat, np))
        return found
    if isinstance(value, dict):
        keys = Counter(_type_name(k) for k in list(value)[:_SAMPLE])
        values = Counter(_type_name(v) for v in list(value.values())[:_SAMPLE])
        return {"type": kind, "length": len(value), "key_types": dict(keys), "value_types": dict(values)}
    if isinstance(value, list | tuple | set | frozenset):
        items = Counter(_type_name(v) for _, v in zip(range(_SAMPLE), value, strict=False))
        return {"type": kind, "length": len(value), "element_types": dict(items)}
    if isinstance(value, str | bytes | bytearray):
        return {"type": kind, "length": len(value)}
    if isinstance(value, int | float | complex | bool) or value is None:
        return {"type": kind, "note": "a single value: run code to see it (under the data policy)"}
    found = {"type": kind, **_shape_of(value)}
    try:
        names = [n for n in dir(value) if not n.startswith("_")][:50]
    except Exception:
        names = []
    found["attributes"] = names
    return found


def _numbers(values: Any, np: Any) -> dict[str, Any]:
    p25, p50, p75 = np.percentile(values, [25, 50, 75])
    return {
        "mean": _round(values.mean()),
        "std": _round(values.std()),
        "min": _round(values.min()),
        "p25": _round(p25),
        "p50": _round(p50),
        "p75": _round(p75),
        "max": _round(values.max()),
    }


def _column(name: str, series: Any) -> dict[str, Any]:
    """One column (or Series) by aggregates."""
    pd = _pandas()
    np = _numpy()
    found: dict[str, Any] = {"name": name, "dtype": str(series.dtype), "nulls": int(series.isna().sum())}
    try:
        found["distinct"] = int(series.nunique(dropna=True))
    except TypeError:  # unhashable cells (lists, dicts)
        found["distinct"] = None
    kind = getattr(series.dtype, "kind", "O")
    if pd.api.types.is_bool_dtype(series.dtype):
        found["true"] = int(series.fillna(False).astype(bool).sum())
    elif pd.api.types.is_numeric_dtype(series.dtype) and np is not None:
        numbers = pd.to_numeric(series, errors="coerce").dropna().astype("float64").to_numpy()
        numbers = numbers[np.isfinite(numbers)]
        if numbers.size:
            found.update(_numbers(numbers, np))
    elif pd.api.types.is_datetime64_any_dtype(series.dtype):
        present = series.dropna()
        if len(present):
            low, high = present.min(), present.max()
            found.update(
                {"min": str(low.date()), "max": str(high.date()), "range_days": int((high - low).days)}
            )
    elif pd.api.types.is_timedelta64_dtype(series.dtype):
        seconds = series.dropna().dt.total_seconds()
        if len(seconds):
            found.update({"min_seconds": _round(seconds.min()), "max_seconds": _round(seconds.max())})
    else:
        if isinstance(series.dtype, pd.CategoricalDtype):
            found["categories"] = len(series.cat.categories)
        present = series.dropna()
        if (len(present) and kind in "OSUT") or isinstance(
            series.dtype, pd.StringDtype | pd.CategoricalDtype
        ):
            lengths = present.astype(str).str.len()
            if len(lengths):
                found.update(
                    {
                        "min_length": int(lengths.min()),
                        "max_length": int(lengths.max()),
                        "mean_length": _round(lengths.mean()),
                    }
                )
    return found
