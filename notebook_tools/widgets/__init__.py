"""The notebook layer: the `Chat` anywidget and `ask` prompts (imports anywidget)."""

from ..prompts._files import FileRecord
from ..testing._cassette import register_front_end
from ._ask import PromptNotAnswered, ask
from ._bench import ToolBench
from ._cassette_user import CassetteUser, attach
from ._chat import Chat
from ._scripted_user import SKIP, ScriptedUser

register_front_end(Chat, attach)  # `cassette.attach(chat)`: the core names no widget

__all__ = [
    "SKIP",
    "CassetteUser",
    "Chat",
    "FileRecord",
    "PromptNotAnswered",
    "ScriptedUser",
    "ToolBench",
    "ask",
]
