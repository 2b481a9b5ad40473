"""Approvals: which calls need a person's yes, the decisions, remembered rules and path zones.

A tool's `needs_approval` is True, False, `Blocked(reason)` or a function of the
arguments returning one of those. The agent's `approval_mode` decides what
"needs approval" means: "interactive" asks, "approve_all" and "auto_deny" decide
alone. Every decision is appended to the store's audit log.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._exceptions import ConfigurationError

__all__ = [
    "ApprovalDecision",
    "ApprovalMode",
    "ApprovalPreview",
    "ApprovalScope",
    "AuditRecord",
    "Blocked",
    "PathZones",
    "PendingApproval",
    "RememberedApproval",
]

ApprovalMode = Literal["interactive", "approve_all", "auto_deny"]
PREVIEW_CHARS = 20_000
"""The most of an approval preview a card shows (a long diff is cut, saying how much was left out)."""
Zone = Literal["pre_approved", "ask", "blocked"]


class Blocked:
    """A call that is never allowed; the model is told `reason`."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Blocked({self.reason!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Blocked) and other.reason == self.reason

    def __hash__(self) -> int:
        return hash(("Blocked", self.reason))


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApprovalScope(_Model):
    """What kind of call this is, for "remember for calls like this" (a tool's `approval_scope`).

    A person who approves a call and remembers its scope approves every later call of the tool
    with the same `key` for the session.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(min_length=1, max_length=200)
    """Calls with the same key are alike (e.g. "code:inplace+reassign")."""
    label: str = Field(min_length=1, max_length=300)
    """What remembering covers, for the card: "code that modifies data in place"."""
    reasons: tuple[str, ...] = ()
    """Why this call asks (shown on the card): "line 3: reassigns existing variable 'df'"."""


class ApprovalPreview(_Model):
    """What a call will do, as its approval card shows it above the arguments (a tool's `approval_preview`).

    A person approves what they read: a shell command as it will run, a file change as a unified
    diff against what is on disk now, rather than the same text escaped inside the arguments' JSON.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["diff", "command", "text"]
    """How front ends colour it: "diff" marks added and removed lines, "command" is shell input."""
    text: str = Field(min_length=1, max_length=PREVIEW_CHARS)
    """The lines to show, as they are (never markup); longer text is cut with a note saying so."""

    @classmethod
    def clipped(cls, kind: Literal["diff", "command", "text"], text: str) -> ApprovalPreview | None:
        """A preview of `text`, cut at a line end within `PREVIEW_CHARS`, saying how much was left out.

        None for no text.
        """
        if not text:
            return None
        if len(text) > PREVIEW_CHARS:
            cut = text[: PREVIEW_CHARS - 100]
            cut = cut.rsplit("\n", 1)[0] if "\n" in cut else cut
            left = len(text) - len(cut)
            text = f"{cut}\n… {left:,} more characters not shown (the arguments hold them all)"
        return cls(kind=kind, text=text)


class PendingApproval(_Model):
    """A call waiting for a person's approval."""

    kind: Literal["pending_approval"] = "pending_approval"
    tool_use_id: str
    name: str
    input: dict[str, Any]
    description: str = ""
    requested_at: float = Field(default_factory=time.time)


class ApprovalDecision(_Model):
    """A person's decision on one pending approval (strict: nothing is coerced)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["approval_decision"] = "approval_decision"
    tool_use_id: str
    approved: bool
    reason: str = ""
    """Why it was denied (the model sees it)."""
    edited_input: dict[str, Any] | None = None
    """Arguments to run instead of the model's (validated against the input schema)."""
    remember: Literal["arguments", "tool", "scope"] | None = None
    """Approve identical calls ("arguments"), every call of this tool ("tool"), or every call of the
    tool in the same `ApprovalScope` ("scope", for a tool that has scopes) for the session."""


class RememberedApproval(_Model):
    """An approval remembered for the session (saved with its state)."""

    tool: str
    input: dict[str, Any] | None = None
    """The exact arguments, or None for every call of the tool (or of its `scope`)."""
    scope: str | None = None
    """An `ApprovalScope` key: only the tool's calls in that scope."""
    label: str = ""
    """The scope's label, for lists of what is remembered."""

    def covers(self, name: str, arguments: dict[str, Any], scope: str | None = None) -> bool:
        """Whether this rule approves the call (`scope`: the call's scope key, if its tool has scopes)."""
        if self.tool != name:
            return False
        if self.scope is not None:
            return scope == self.scope
        return self.input is None or _canonical(self.input) == _canonical(arguments)


class AuditRecord(_Model):
    """One decision in the audit log."""

    time: float = Field(default_factory=time.time)
    agent_uuid: str
    tool_use_id: str
    tool: str
    arguments: dict[str, Any]
    decision: Literal["approved", "denied", "edited", "blocked", "auto_approved", "auto_denied"]
    reason: str = ""


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class PathZones:
    """Approval by path prefix for file tools.

    Per path prefix, each action ("write", "delete", ...) is "pre_approved", "ask" or "blocked".

    Example::

        zones = nt.PathZones(
            {
                "data/raw": {"write": "blocked", "delete": "blocked"},
                "scratch": {"write": "pre_approved", "delete": "ask"},
            },
            default="ask",
        )

        @nt.tool(needs_approval=zones.rule("write", path_arg="path"))
        def save_csv(path: str) -> str: ...
    """

    def __init__(
        self, zones: Mapping[str, Mapping[str, Zone]], *, default: Zone = "ask", root: str = "."
    ) -> None:
        for prefix, actions in zones.items():
            for action, zone in actions.items():
                if zone not in ("pre_approved", "ask", "blocked"):
                    raise ConfigurationError(
                        f"zone for {prefix!r} {action!r} must be pre_approved, ask or blocked, not {zone!r}"
                    )
        self.root = os.path.abspath(root)
        self.zones = {self._norm(p): dict(a) for p, a in zones.items()}
        self._written = {self._norm(p): p for p in zones}  # each prefix as the author wrote it
        self.default: Zone = default

    def _norm(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.root, os.path.expanduser(path)))

    def zone(self, action: str, path: str) -> Zone:
        """The zone of `action` on `path`: the longest matching prefix wins."""
        return self._match(action, path)[0]

    def _match(self, action: str, path: str) -> tuple[Zone, str | None]:
        """The zone of `action` on `path`, and the prefix that decided it (None: the default)."""
        target = self._norm(path)
        best: tuple[str, Zone] | None = None
        for prefix, actions in self.zones.items():
            inside = target == prefix or target.startswith(prefix.rstrip(os.sep) + os.sep)
            if inside and action in actions and (best is None or len(prefix) > len(best[0])):
                best = (prefix, actions[action])
        return (best[1], self._written[best[0]]) if best else (self.default, None)

    def rule(self, action: str, *, path_arg: str = "path") -> Callable[[dict[str, Any]], bool | Blocked]:
        """A `needs_approval` function for a tool whose `path_arg` argument is the path it touches."""

        def needs_approval(arguments: dict[str, Any]) -> bool | Blocked:
            path = str(arguments.get(path_arg, ""))
            zone, prefix = self._match(action, path)
            if zone == "blocked":  # named by the folder that blocks it, not by the file asked for
                where = (
                    f"in the folder {prefix!r}"
                    if prefix is not None
                    else f"outside the allowed folders ({path!r})"
                )
                return Blocked(f"{action} is blocked {where}")
            return zone == "ask"

        return needs_approval
