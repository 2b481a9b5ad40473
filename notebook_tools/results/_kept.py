"""The live objects tools returned, kept in the kernel by `tool_use_id` for the person to keep using."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ._kinds import RichResult

__all__ = ["KeptResult", "KeptResults"]


@dataclass(frozen=True)
class KeptResult:
    """What one call returned: the live `value` (a DataFrame, a figure) and what the person was shown."""

    tool_use_id: str
    name: str
    value: Any
    shown: RichResult | None


class KeptResults:
    """The last `limit` results with a rich form, by `tool_use_id` (oldest dropped first).

    In this process only: a restart keeps the compact text the model read, not the objects.
    """

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self._items: OrderedDict[str, KeptResult] = OrderedDict()

    def keep(self, item: KeptResult) -> None:
        self._items[item.tool_use_id] = item
        self._items.move_to_end(item.tool_use_id)
        while len(self._items) > self.limit:
            self._items.popitem(last=False)

    def __getitem__(self, tool_use_id: str) -> KeptResult:
        return self._items[tool_use_id]

    def __contains__(self, tool_use_id: object) -> bool:
        return tool_use_id in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[str]:
        """The kept tool_use_ids, oldest first."""
        return iter(list(self._items))

    def values(self) -> list[KeptResult]:
        """The kept results, oldest first."""
        return list(self._items.values())

    def get(self, tool_use_id: str) -> KeptResult | None:
        return self._items.get(tool_use_id)

    def clear(self) -> None:
        self._items.clear()

    def __repr__(self) -> str:
        return f"KeptResults({list(self._items)})"
