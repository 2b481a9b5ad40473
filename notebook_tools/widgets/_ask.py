"""`nt.ask`: the widget's prompts without an agent (`answer = await nt.ask.confirm("Overwrite?")`).

The same rules as for frontend tools apply: a 60 s timeout by default, the no-frontend policies,
acks; a prompt that is skipped, times out or cannot be shown raises `PromptNotAnswered`.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

from .._builtins import ask_text, pick_file, select_option, user_confirm
from .._exceptions import PromptNotAnswered
from .._files import FileRecord
from .._state import PendingFrontendTool, ToolResult
from .._tools import DEFAULT_FRONTEND_TIMEOUT, Tool
from ._chat import Chat
from ._scripted_user import ScriptedUser

__all__ = ["PromptNotAnswered", "ask"]


class _Ask:
    """Prompts without an agent; each shows a small widget and returns the answer."""

    def __init__(self) -> None:
        self.last: Chat | None = None
        """The widget of the most recent prompt (a test or a scripted user can answer through it)."""
        self.headless_answers: dict[str, Any] = {}
        """What a scripted user answers when no browser is attached (NOTEBOOK_TOOLS_SCRIPTED_USER=1)."""

    async def _prompt(
        self, tool: Tool, arguments: dict[str, Any], timeout: float | None, **chat: Any
    ) -> ToolResult:
        widget = Chat(None, **chat)
        widget.broker.tools[tool.name] = tool
        self.last = widget
        ScriptedUser.when_headless(widget, self.headless_answers)
        _display(widget)
        call = PendingFrontendTool(
            tool_use_id=f"ask_{uuid.uuid4().hex[:12]}", name=tool.name, input=arguments, timeout=timeout
        )
        [result] = await widget.collect([call])
        if result.is_error:
            raise PromptNotAnswered(str(result.content))
        return result

    async def confirm(
        self,
        message: str,
        *,
        confirm_label: str = "Yes",
        deny_label: str = "No",
        timeout: float | None = DEFAULT_FRONTEND_TIMEOUT,
    ) -> bool:
        """Ask a yes/no question; True for yes."""
        args = {"message": message, "confirm_label": confirm_label, "deny_label": deny_label}
        return (await self._prompt(user_confirm, args, timeout)).content == "yes"

    async def text(
        self,
        prompt: str,
        *,
        placeholder: str = "",
        default: str = "",
        multiline: bool = False,
        timeout: float | None = DEFAULT_FRONTEND_TIMEOUT,
    ) -> str:
        """Ask for a piece of text."""
        args = {"prompt": prompt, "placeholder": placeholder, "default": default, "multiline": multiline}
        content = (await self._prompt(ask_text, args, timeout)).content
        assert isinstance(content, str)
        return content

    async def select(
        self,
        prompt: str,
        options: list[str],
        *,
        multiple: bool = False,
        timeout: float | None = DEFAULT_FRONTEND_TIMEOUT,
    ) -> str | list[str]:
        """Ask to choose among options: one option, or a list when `multiple`."""
        args = {"prompt": prompt, "options": list(options), "multiple": multiple}
        content = (await self._prompt(select_option, args, timeout)).content
        assert isinstance(content, str)
        return list(json.loads(content)) if multiple else content

    async def file(
        self,
        prompt: str,
        *,
        accept: str = "",
        multiple: bool = False,
        timeout: float | None = pick_file.timeout,
        **chat: Any,
    ) -> list[FileRecord]:
        """Ask for a file (upload or pick from the working directory); returns what was chosen."""
        args = {"prompt": prompt, "accept": accept, "multiple": multiple}
        result = await self._prompt(pick_file, args, timeout, **chat)
        assert isinstance(result.content, list)
        meta = json.loads(result.content[0]["text"])
        return [FileRecord(m["name"], m["path"], m["size"], m["media_type"], "") for m in meta]


def _display(widget: Chat) -> None:
    ipython = sys.modules.get("IPython")
    if ipython is None or ipython.get_ipython() is None:
        return  # plain Python: no front end to show the prompt in
    from IPython.display import display

    display(widget)  # type: ignore[no-untyped-call]


ask = _Ask()
