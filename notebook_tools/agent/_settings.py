"""What an agent is set up with (client, model, limits, approval mode), shared by its parts.

The parts read the settings when they act, so a setting changed on the agent (`agent.max_tokens = 8000`)
applies from the next request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import anthropic

from .._exceptions import ConfigurationError
from ..api._options import RequestOptions
from ..tools._approvals import ApprovalMode

__all__ = ["PartAttribute", "Settings"]

T = TypeVar("T")


@dataclass
class Settings:
    """The agent's settings (see `Agent` for each one's meaning)."""

    client: anthropic.AsyncAnthropic
    model: str
    system: str | None
    max_turns: int
    max_tokens: int
    max_result_chars: int
    stream_retries: int
    retry_delay: float
    approval_mode: ApprovalMode
    options: RequestOptions = field(default_factory=RequestOptions)
    """The request options of every turn (a turn's own, given to `run`, replace them for that turn)."""
    server_tools: list[dict[str, Any]] = field(default_factory=list)
    """Tool definitions the API runs or defines (web search, code execution, ...), sent as given."""

    def __post_init__(self) -> None:
        if self.approval_mode not in ("interactive", "approve_all", "auto_deny"):
            raise ConfigurationError(
                f"approval_mode must be interactive, approve_all or auto_deny, not {self.approval_mode!r}"
            )


class PartAttribute(Generic[T]):
    """An attribute of the agent that is one of a part's (`agent.model` is `agent.settings.model`).

    Args:
        of: The agent's attribute holding the part (its `settings` by default, or its `writer`).
    """

    def __init__(self, of: str = "settings") -> None:
        self.of = of

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, agent: Any, owner: type | None = None) -> T:
        if agent is None:
            return cast(T, self)
        return cast(T, getattr(getattr(agent, self.of), self.name))

    def __set__(self, agent: Any, value: T) -> None:
        setattr(getattr(agent, self.of), self.name, value)
