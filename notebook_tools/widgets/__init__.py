"""The notebook layer: the `Chat` anywidget and `ask` prompts (imports anywidget)."""

from ._ask import PromptNotAnswered, ask
from ._chat import Chat
from ._files import FileRecord

__all__ = ["Chat", "FileRecord", "PromptNotAnswered", "ask"]
