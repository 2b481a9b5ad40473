"""The data policy: nothing from the kernel's data reaches the model unless the person agreed, and a ledger.

Everything the kernel toolset returns to the model is one of three things: metadata (names, types,
shapes, columns, dtypes), aggregates (counts, nulls, rounded summaries), or values (printed text,
a displayed DataFrame, an error message, changed cells). Metadata and aggregates always go. Values
go by the policy:

- `"ask"` (the default): a consent card shows exactly what would be sent and lets the person send
  it, send it with columns masked, send only aggregates, or send nothing, and remember the choice
  for the variables the code read or for the masked columns, for the session;
- `"aggregates"`: never values, only aggregates of the tables that would have been sent;
- `"allow"`: values go (and are recorded).

With nobody to ask (no front end), "ask" sends nothing: it fails closed. Every piece that leaves
the kernel, and every piece held back, is an entry of the `Ledger`: what, when, how it was decided,
how many characters, a digest and a short preview. The policy's state (the remembered choices and
the ledger) is JSON, kept with the session by the toolset.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._exceptions import ConfigurationError

__all__ = [
    "MASK",
    "Choice",
    "DataPolicy",
    "Ledger",
    "LedgerEntry",
    "Piece",
    "Policy",
    "Remembered",
    "mask_frame",
    "mask_text",
]

Policy = Literal["ask", "aggregates", "allow"]
Choice = Literal["send", "mask", "aggregates", "withhold"]
How = Literal["metadata", "aggregates", "allowed", "approved", "approved_masked", "remembered", "withheld"]
MASK = "■■■"
"""What a masked value is replaced with."""
_PREVIEW = 200
_MAX_MASKED_VALUES = 50_000


@dataclass
class Piece:
    """One piece of what a tool would tell the model that may hold data values.

    `text` is exactly what would be sent; `frame` is the DataFrame (or Series) it shows, if any
    (what masking and aggregates work on).
    """

    label: str
    text: str
    frame: Any = None


@dataclass
class Remembered:
    """A person's choice remembered for the session."""

    variables: dict[str, Choice] = field(default_factory=dict)
    """Per variable: what to do with values from code that reads it (send, aggregates, withhold)."""
    masked: set[str] = field(default_factory=set)
    """Columns always masked."""


class LedgerEntry(BaseModel):
    """One piece that left the kernel (or was held back), and how that was decided."""

    model_config = ConfigDict(extra="forbid")

    time: float = Field(default_factory=time.time)
    call: str
    """The tool call it answered (tool_use_id)."""
    tool: str
    what: str
    """What it was: "printed output", "a DataFrame of 5 rows", "aggregates of df"."""
    variables: list[str] = Field(default_factory=list)
    """The variables the code read (where the values may come from)."""
    how: How
    masked: list[str] = Field(default_factory=list)
    chars: int = 0
    """Characters sent (0 when withheld)."""
    sha256: str = ""
    """Digest of exactly what was sent."""
    preview: str = ""
    """Its first characters."""


class Ledger:
    """Every piece that left the kernel, in order (kept with the session; exportable)."""

    def __init__(self, entries: Iterable[LedgerEntry] = ()) -> None:
        self.entries: list[LedgerEntry] = list(entries)

    def record(
        self,
        call: str,
        tool: str,
        what: str,
        how: How,
        sent: str = "",
        *,
        variables: Iterable[str] = (),
        masked: Iterable[str] = (),
    ) -> LedgerEntry:
        """Add one entry for `sent` (the exact text that went, "" when nothing did)."""
        entry = LedgerEntry(
            call=call,
            tool=tool,
            what=what,
            how=how,
            variables=sorted(variables),
            masked=sorted(masked),
            chars=len(sent),
            sha256=hashlib.sha256(sent.encode()).hexdigest() if sent else "",
            preview=sent[:_PREVIEW],
        )
        self.entries.append(entry)
        return entry

    def to_json(self) -> list[dict[str, Any]]:
        """The entries as JSON data."""
        return [e.model_dump(mode="json") for e in self.entries]

    def to_dataframe(self) -> Any:
        """The entries as a pandas DataFrame (pandas must be installed)."""
        pd = importlib.import_module("pandas")
        return pd.DataFrame(self.to_json())

    def export(self, path: str) -> None:
        """Write the ledger to `path`: `.csv` as CSV, anything else as JSON."""
        if path.endswith(".csv"):
            self.to_dataframe().to_csv(path, index=False)
            return
        with open(path, "w", encoding="utf-8") as out:
            json.dump(self.to_json(), out, indent=1)


class DataPolicy:
    """The policy, the remembered choices and the ledger of one toolset.

    Args:
        policy: "ask" (the default), "aggregates" or "allow".
    """

    def __init__(self, policy: Policy = "ask") -> None:
        if policy not in ("ask", "aggregates", "allow"):
            raise ConfigurationError(f"policy must be 'ask', 'aggregates' or 'allow', not {policy!r}")
        self.policy: Policy = policy
        self.remembered = Remembered()
        self.ledger = Ledger()

    def settled(self, variables: Iterable[str]) -> Choice | None:
        """What to do with values from code that read `variables`, without asking (None: ask).

        The most careful choice remembered for any of them wins; "send" needs every one of them
        remembered as "send" (code that reads no variable is asked about: it may read files).
        """
        if self.policy == "allow":
            return "send"
        if self.policy == "aggregates":
            return "aggregates"
        names = list(variables)
        choices = [self.remembered.variables.get(name) for name in names]
        for careful in ("withhold", "aggregates"):
            if careful in choices:
                return careful
        if names and all(choice == "send" for choice in choices):
            return "mask" if self.remembered.masked else "send"
        return None

    def remember(self, variables: Iterable[str], choice: Choice, masked: Iterable[str] = ()) -> None:
        """Remember `choice` for `variables` ("mask" is remembered as send, with its columns masked)."""
        for name in variables:
            self.remembered.variables[name] = "send" if choice == "mask" else choice
        self.remembered.masked |= set(masked)

    def to_json(self) -> dict[str, Any]:
        """The remembered choices and the ledger, as kept with the session."""
        return {
            "variables": dict(self.remembered.variables),
            "masked": sorted(self.remembered.masked),
            "ledger": self.ledger.to_json(),
        }

    def load(self, data: dict[str, Any] | None) -> None:
        """Take back what `to_json` gave (a restarted kernel's session); junk is ignored."""
        if not isinstance(data, dict):
            return
        variables = data.get("variables")
        if isinstance(variables, dict):
            self.remembered.variables = {
                str(k): v for k, v in variables.items() if v in ("send", "aggregates", "withhold")
            }
        masked = data.get("masked")
        if isinstance(masked, list):
            self.remembered.masked = {str(c) for c in masked}
        ledger = data.get("ledger")
        if isinstance(ledger, list):
            entries = []
            for item in ledger:
                try:
                    entries.append(LedgerEntry.model_validate(item))
                except ValueError:
                    continue
            self.ledger = Ledger(entries)


def table_columns(pieces: Sequence[Piece]) -> list[str]:
    """The columns of the tables among `pieces` (what the consent card offers to mask)."""
    columns: dict[str, None] = {}
    for piece in pieces:
        frame = piece.frame
        names = getattr(frame, "columns", None)
        if names is not None:
            columns.update((str(c), None) for c in names)
        elif getattr(frame, "name", None) is not None:
            columns[str(frame.name)] = None
    return list(columns)


def mask_frame(frame: Any, columns: Iterable[str]) -> Any:
    """A copy of `frame` with the values of `columns` replaced by `MASK` (names compared as text)."""
    wanted = set(columns)
    pd = sys.modules.get("pandas")
    if pd is None:
        return frame
    if isinstance(frame, pd.Series):
        return frame.astype(object).where(False, MASK) if str(frame.name) in wanted else frame
    if not isinstance(frame, pd.DataFrame):
        return frame
    masked = frame.copy()
    for column in frame.columns:
        if str(column) in wanted:
            masked[column] = pd.Series([MASK] * len(frame), index=frame.index, dtype=object)
    return masked


def mask_text(text: str, frames: Iterable[Any], columns: Iterable[str]) -> str:
    """`text` with every value of `columns` (of the given frames) found in it replaced by `MASK`.

    Best effort, for printed text: a value is found as its `str()`; a value shown cut short (a
    long string pandas prints as "abc...") or reformatted (a float rounded by the printout) is not.
    """
    wanted = set(columns)
    values: set[str] = set()
    for frame in frames:
        for column in getattr(frame, "columns", []):
            if str(column) not in wanted:
                continue
            try:
                unique = frame[column].dropna().astype(str).unique()
            except Exception:
                continue
            for value in unique[:_MAX_MASKED_VALUES]:
                if value.strip():
                    values.add(value)
    for value in sorted(values, key=len, reverse=True):  # a longer value first: it may hold a shorter one
        if value in text:
            text = text.replace(value, MASK)
    return text
