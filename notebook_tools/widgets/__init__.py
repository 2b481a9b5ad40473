"""The notebook layer: the `Chat` anywidget and `ask` prompts (imports anywidget)."""

from .._files import FileRecord
from ._ask import PromptNotAnswered, ask
from ._bench import ToolBench
from ._chat import Chat
from ._scripted_user import SKIP, ScriptedUser

__all__ = ["SKIP", "Chat", "FileRecord", "PromptNotAnswered", "ScriptedUser", "ToolBench", "ask"]
