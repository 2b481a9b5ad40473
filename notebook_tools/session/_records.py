"""Parts of a session kept for the record and for front ends, never sent to the model.

`SetAside` holds exchanges taken out of the history; `FrontView` holds what a front end needs to
show the history the way it first showed it: the ids its client gave messages (an AG-UI client's
own user and tool message ids) and the order tool results arrived in.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FrontView", "SetAside"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class SetAside(_Model):
    """An exchange taken out of the history (a refused turn), kept to show and for the record."""

    messages: list[dict[str, Any]]
    """The messages removed, from the person's message on."""
    stop_reason: str
    stop_details: dict[str, Any] | None = None
    at: float = Field(default_factory=time.time)


class FrontView(_Model):
    """How front ends saw the history: their own message ids, and the order results arrived in."""

    client_ids: dict[str, str] = Field(default_factory=dict)
    """A client's id for a message, by the id derived from the history (`msg_<index>`, `result_<call>`)."""
    result_order: dict[str, list[str]] = Field(default_factory=dict)
    """For a tool results message (by its index) whose results arrived out of call order, the call ids in
    the order they arrived: a backend result streams before the person answers a frontend call."""

    def arrived(self, index: int, results: Sequence[Any], calls: list[str]) -> FrontView:
        """This view once the results message at `index` holds `results` (in arrival order) for `calls`."""
        order = [r.tool_use_id for r in results]
        if order == calls:
            return self
        return self.model_copy(update={"result_order": {**self.result_order, str(index): order}})

    def client_id(self, derived: str) -> str:
        """The client's id for the message `derived` names, else `derived` itself."""
        return self.client_ids.get(derived, derived)
