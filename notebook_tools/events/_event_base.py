"""The base of every event: the session it belongs to and when it happened."""

from __future__ import annotations

import time

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["_Event"]


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agent_uuid: str = ""
    """The session the event belongs to."""
    time: float = Field(default_factory=time.time)
