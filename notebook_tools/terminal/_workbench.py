"""The demo's backend tools: a small sales table in memory, and tools that inspect, clean and save it.

`python -m notebook_tools chat` offers these tools to the model (Claude or the scripted one). They
do real work on a real (small) table, so the conversation's numbers add up: 52 rows, 4 of them
exact duplicates, 5 prices missing, and the price column stored as text. `write_csv` writes a real
file and needs the person's approval; `profile_table` is slow on purpose (Ctrl+C stops it);
`count_rows` can also be run by hand (`/count_rows --table sales`).
"""

from __future__ import annotations

import asyncio
import csv
import json
import statistics
from pathlib import Path
from typing import Any, Literal

from .._exceptions import InvalidInput
from ..tools._tool import Tool, tool

__all__ = ["PROFILE_SECONDS", "Workbench", "sales_rows"]

PROFILE_SECONDS = 2.5
"""Seconds `profile_table` spends on each column."""
_BASE_PRICE = {"apples": 1.2, "pears": 1.5, "plums": 2.1}
_MISSING = {5, 13, 22, 31, 40}
_DUPLICATED = (2, 9, 17, 30)

Row = dict[str, Any]


def sales_rows() -> list[Row]:
    """The demo's `sales` table: 52 rows, 4 exact duplicates, 5 missing prices, prices as text."""
    rows: list[Row] = []
    for i in range(48):
        product = ("apples", "pears", "plums")[i % 3]
        price = "" if i in _MISSING else f"{_BASE_PRICE[product] + (i % 5) * 0.1:.2f}"
        rows.append(
            {"region": ("north", "south", "east", "west")[i % 4], "product": product, "qty": 5 + (i * 7) % 20}
            | {"price": price}
        )
    return rows + [dict(rows[i]) for i in _DUPLICATED]


def _duplicates(rows: list[Row]) -> int:
    seen: set[tuple[Any, ...]] = set()
    count = 0
    for row in rows:
        key = tuple(row.values())
        count += key in seen
        seen.add(key)
    return count


class Workbench:
    """Tables the demo's tools work on, by name (one workbench per chat)."""

    def __init__(self) -> None:
        self.tables: dict[str, list[Row]] = {"sales": sales_rows()}

    def table(self, name: str) -> list[Row]:
        """The rows of a table; a clear error (which the model sees) for an unknown name."""
        if name not in self.tables:
            raise InvalidInput(f"there is no table {name!r}; tables: {', '.join(sorted(self.tables))}")
        return self.tables[name]

    def tools(self) -> list[Tool]:
        """The backend tools, bound to this workbench."""
        bench = self

        @tool
        def describe_table(table: str) -> str:
            """Describe a table: its size, column types, missing values and duplicate rows.

            Args:
                table: The table's name, e.g. "sales".
            """
            rows = bench.table(table)
            columns = {k: _kind(rows, k) for k in rows[0]} if rows else {}
            missing = {k: n for k in columns if (n := sum(r[k] in ("", None) for r in rows))}
            summary = {"table": table, "rows": len(rows), "columns": columns, "missing": missing}
            return json.dumps(summary | {"duplicate_rows": _duplicates(rows)})

        @tool
        def clean_table(
            table: str,
            new_name: str,
            drop_duplicates: bool,
            missing_prices: Literal["median", "mean", "drop"],
        ) -> str:
            """Make a cleaned copy of a table: prices as numbers, duplicates and missing prices handled.

            Args:
                table: The table to clean.
                new_name: Name of the cleaned copy.
                drop_duplicates: Whether to drop exact duplicate rows.
                missing_prices: Fill a missing price with the median or mean price of its product, or
                    drop the row.
            """
            rows, notes = [dict(r) for r in bench.table(table)], []
            if drop_duplicates:
                unique = {tuple(r.values()): r for r in reversed(rows)}
                notes.append(f"dropped {len(rows) - len(unique)} duplicate rows")
                rows = [r for r in rows if unique.get(tuple(r.values())) is r]
            missing = [r for r in rows if r["price"] in ("", None)]
            rows = [r for r in rows if r not in missing] if missing_prices == "drop" else rows
            for row in rows:
                row["price"] = float(row["price"]) if row["price"] not in ("", None) else None
            if missing_prices == "drop":
                notes.append(f"dropped {len(missing)} rows without a price")
            else:
                pick = statistics.median if missing_prices == "median" else statistics.mean
                for row in missing:
                    same = [r["price"] for r in rows if r["product"] == row["product"] and r["price"]]
                    row["price"] = round(pick(same), 2)
                notes.append(
                    f"filled {len(missing)} missing prices with the {missing_prices} of their product"
                )
            bench.tables[new_name] = rows
            return f"{new_name}: {len(rows)} rows ({'; '.join(notes)}; price is now a number)"

        @tool(needs_approval=True)
        def write_csv(table: str, path: str) -> str:
            """Write a table to a CSV file (this changes files on disk, so the user approves it first).

            Args:
                table: The table to write.
                path: Where to write it, relative to the working directory.
            """
            rows = bench.table(table)
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("w", newline="") as out:
                writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else [])
                writer.writeheader()
                writer.writerows(rows)
            return f"wrote {len(rows)} rows of {table} to {path}"

        @tool
        async def profile_table(table: str) -> str:
            """Profile every column of a table: how many distinct values each has (slow: seconds per column).

            Args:
                table: The table to profile.
            """
            rows = bench.table(table)
            found = []
            for column in rows[0] if rows else {}:
                await asyncio.sleep(PROFILE_SECONDS)
                values = {str(r[column]) for r in rows}
                found.append(f"{column}: {len(values)} distinct values")
            return "; ".join(found)

        @tool(mode="both")
        def count_rows(table: str) -> str:
            """Count the rows of a table.

            Args:
                table: The table's name.
            """
            return f"{table}: {len(bench.table(table))} rows"

        return [describe_table, clean_table, write_csv, profile_table, count_rows]


def _kind(rows: list[Row], column: str) -> str:
    values = [r[column] for r in rows if r[column] not in ("", None)]
    if all(isinstance(v, int) for v in values):
        return "integer"
    if all(isinstance(v, float) for v in values):
        return "number"
    if all(isinstance(v, str) and _is_number(v) for v in values):
        return "text (numbers stored as text)"
    return "text"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
