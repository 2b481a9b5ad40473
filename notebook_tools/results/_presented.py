"""A tool result with two faces given apart: the model's content, and what the person is shown.

Most tools return one value and the person's view is derived from it (`convert`). A tool whose
view needs data the model should not read (an MCP app's whole `CallToolResult`, its structured
content beside the text) returns `Presented(content, shown)`: `content` goes to the model exactly
as a plain return value would, `shown` goes to the front ends only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._kinds import RichResult

__all__ = ["Presented"]


@dataclass(frozen=True)
class Presented:
    """`content` for the model (text or content blocks), `shown` for the person's card."""

    content: Any
    shown: RichResult
