"""`nt.ask`: prompts without an agent in the notebook (`answer = await nt.ask.confirm("Overwrite?")`).

The prompt API is the core's `PromptUI`; here each prompt gets its own small widget (a
`Chat` without an agent) to be shown in. The same rules as for frontend tools apply: no
timeout unless `timeout=` is given, the no-frontend policies, acks; a prompt that is skipped, times
out or cannot be shown raises `PromptNotAnswered`.
"""

from __future__ import annotations

from typing import Any

from .._exceptions import PromptNotAnswered
from ..prompts._broker import PromptBroker
from ..prompts._ui import PromptUI
from ._chat import Chat
from ._kernel import current_shell
from ._scripted_user import ScriptedUser

__all__ = ["PromptNotAnswered", "ask"]


class _Ask(PromptUI):
    """Prompts without an agent; each shows a small widget and returns the answer."""

    def __init__(self) -> None:
        super().__init__(self._widget)
        self.last: Chat | None = None
        """The widget of the most recent prompt (a test or a scripted user can answer through it)."""
        self.headless_answers: dict[str, Any] = {}
        """What a scripted user answers when no browser is attached (NOTEBOOK_TOOLS_SCRIPTED_USER=1)."""

    def _widget(self, options: dict[str, Any]) -> PromptBroker:
        widget = Chat(None, **options)
        self.last = widget
        ScriptedUser.when_headless(widget, self.headless_answers)
        _display(widget)
        return widget.broker


def _display(widget: Chat) -> None:
    if current_shell() is None:
        return  # plain Python: no front end to show the prompt in
    from IPython.display import display

    display(widget)  # type: ignore[no-untyped-call]


ask = _Ask()
