"""The notebook layer: the `Chat` anywidget and `ask` prompts (imports anywidget).

`Chat` shows an agent's conversation and answers its prompts; `ask` asks one question in a cell
(`PromptNotAnswered` when nobody does); `ToolBench` runs a tool by hand. `ScriptedUser` and
`CassetteUser` answer a chat's prompts in tests and replays (`SKIP` presses Skip); a chosen file is a
`FileRecord`. `ClaudeMagics` are `%%claude` and `%claude_cells` (`%load_ext notebook_tools`).
"""

from ..prompts import FileRecord
from ..testing._cassette import register_front_end
from ._ask import PromptNotAnswered, ask
from ._bench import ToolBench
from ._cassette_user import CassetteUser, attach
from ._chat import Chat
from ._magic import ClaudeMagics
from ._scripted_user import SKIP, ScriptedUser

register_front_end(Chat, attach)  # `cassette.attach(chat)`: the core names no widget

__all__ = [
    "SKIP",
    "CassetteUser",
    "Chat",
    "ClaudeMagics",
    "FileRecord",
    "PromptNotAnswered",
    "ScriptedUser",
    "ToolBench",
    "ask",
]
