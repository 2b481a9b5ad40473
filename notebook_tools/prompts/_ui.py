"""A small prompt API for any front end: `await ui.confirm(...)`, `ui.text`, `ui.select`, `ui.file`.

Each call opens one prompt through a `PromptBroker` and waits for its answer, so a
prompt without an agent behaves the same wherever it is shown: the notebook widget
(`nt.ask`), the terminal, or a web page. A prompt waits until it is answered unless
given a `timeout`; no-frontend policies and acks are the broker's; a prompt that is
skipped, times out or cannot be shown raises `PromptNotAnswered`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from .._exceptions import PromptNotAnswered
from ..session._state import PendingFrontendTool, ToolResult
from ..tools._builtins import ask_text, pick_file, select_option, user_confirm
from ..tools._tool import Tool
from ._broker import PromptBroker
from ._files import FileRecord

__all__ = ["PromptUI"]


class PromptUI:
    """Prompts without an agent over a broker (`broker_for` may make a fresh one per prompt).

    Args:
        broker_for: Returns the broker to ask through (e.g. a new widget's) for one prompt.
    """

    def __init__(
        self, broker_for: Callable[[dict[str, Any]], Awaitable[PromptBroker] | PromptBroker]
    ) -> None:
        self._broker_for = broker_for

    async def _ask(
        self, tool: Tool, arguments: dict[str, Any], timeout: float | None, **options: Any
    ) -> ToolResult:
        made = self._broker_for(options)
        broker = made if isinstance(made, PromptBroker) else await made
        broker.tools[tool.name] = tool
        call = PendingFrontendTool(
            tool_use_id=f"ask_{uuid.uuid4().hex[:12]}", name=tool.name, input=arguments, timeout=timeout
        )
        [result] = await broker.collect([call])
        if result.is_error:
            raise PromptNotAnswered(str(result.content))
        return result

    async def confirm(
        self,
        message: str,
        *,
        confirm_label: str = "Yes",
        deny_label: str = "No",
        timeout: float | None = None,
    ) -> bool:
        """Ask a yes/no question; True for yes."""
        args = {"message": message, "confirm_label": confirm_label, "deny_label": deny_label}
        return (await self._ask(user_confirm, args, timeout)).content == "yes"

    async def text(
        self,
        prompt: str,
        *,
        placeholder: str = "",
        default: str = "",
        multiline: bool = False,
        timeout: float | None = None,
    ) -> str:
        """Ask for a piece of text."""
        args = {"prompt": prompt, "placeholder": placeholder, "default": default, "multiline": multiline}
        return str((await self._ask(ask_text, args, timeout)).content)

    async def select(
        self,
        prompt: str,
        options: list[str],
        *,
        multiple: bool = False,
        timeout: float | None = None,
    ) -> str | list[str]:
        """Ask to choose among options: one option, or a list when `multiple`."""
        args = {"prompt": prompt, "options": list(options), "multiple": multiple}
        content = str((await self._ask(select_option, args, timeout)).content)
        return list(json.loads(content)) if multiple else content

    async def file(
        self,
        prompt: str,
        *,
        accept: str = "",
        multiple: bool = False,
        timeout: float | None = None,
        **options: Any,
    ) -> list[FileRecord]:
        """Ask for a file (uploaded, or picked from the working directory); returns what was chosen."""
        args = {"prompt": prompt, "accept": accept, "multiple": multiple}
        result = await self._ask(pick_file, args, timeout, **options)
        assert isinstance(result.content, list)
        meta = json.loads(result.content[0]["text"])
        return [FileRecord(m["name"], m["path"], m["size"], m["media_type"], "") for m in meta]
