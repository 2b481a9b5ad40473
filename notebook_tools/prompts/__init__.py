"""Prompts: what a person is asked, answered by whichever front end is there.

A `PromptBroker` holds the open prompts of a session: answers by id, checked against their prompt
as the model will read them; timeouts; what happens when no front end is there
(`NoFrontendPolicy`); which front ends are present. Files a person sends arrive in a `FileInbox`
(`FileRecord` each, `FileAccessError` for a path outside its root). `PromptUI` asks
`confirm`/`text`/`select`/`file` without an agent; `InCallPrompts` asks from inside a running
tool (`in_call_prompts()` finds the running call's). A test moves time on with a `FakeClock`. The
widget, the terminal and the HTTP server's held runs share all of it; none of it imports Jupyter,
and nothing here knows an agent (`frontend.FrontendSession` joins the two).
"""

from ._broker import NoFrontendPolicy, PromptBroker
from ._clock import FakeClock
from ._files import FileAccessError, FileInbox, FileRecord
from ._in_call import InCallPrompts, in_call_prompts
from ._ui import PromptUI

__all__ = [
    "FakeClock",
    "FileAccessError",
    "FileInbox",
    "FileRecord",
    "InCallPrompts",
    "NoFrontendPolicy",
    "PromptBroker",
    "PromptUI",
    "in_call_prompts",
]
