"""Tools and what is offered: `@tool`, schemas, renderers, approvals, built-ins, plugins and tool sets.

`tool` turns a function into a `Tool` (its schema from type hints and a Google docstring); a
frontend tool may carry its own `Renderer`. Approvals (`ApprovalMode`, `ApprovalDecision`,
`PendingApproval`, `AuditRecord`, `Blocked`, `PathZones`, and `ApprovalScope` for "remember calls
like this") decide which calls wait for a person.
The built-in prompts (`user_confirm`, `ask_text`, `select_option`, `pick_file`) and browser tools
(`open_url`, `copy_to_clipboard`, `download_file`, `notify`) are ready-made frontend tools;
`memory_tool`, `checkpoint` (`Checkpoint`) and `server_tool` cover the API's own tools. `Plugin`,
`Skill` and `Augmented` bundle tools (an MCP server's tools become a plugin: see `mcp`; a plugin
keeps state of its own in a session's `KeptData`); a
session's `ToolsetState` (with its `Augmentation`s and `ContextItem`s) and the `Toolset` it
offers decide what each request carries.

Below `session/`: a session's state refers to approvals and tool-set state defined here.
"""

from ._approvals import (
    ApprovalDecision,
    ApprovalMode,
    ApprovalPreview,
    ApprovalScope,
    AuditRecord,
    Blocked,
    PathZones,
    PendingApproval,
)
from ._browser_tools import copy_to_clipboard, download_file, notify, open_url
from ._builtins import ask_text, pick_file, select_option, user_confirm
from ._checkpoint import Checkpoint, checkpoint
from ._memory import memory_tool
from ._plugins import Augmented, KeptData, Plugin, Skill
from ._renderers import Renderer
from ._server_tools import server_tool
from ._tool import Tool, tool
from ._toolset import Toolset
from ._toolset_state import Augmentation, ContextItem, ToolsetState

__all__ = [
    "ApprovalDecision",
    "ApprovalMode",
    "ApprovalPreview",
    "ApprovalScope",
    "AuditRecord",
    "Augmentation",
    "Augmented",
    "Blocked",
    "Checkpoint",
    "ContextItem",
    "KeptData",
    "PathZones",
    "PendingApproval",
    "Plugin",
    "Renderer",
    "Skill",
    "Tool",
    "Toolset",
    "ToolsetState",
    "ask_text",
    "checkpoint",
    "copy_to_clipboard",
    "download_file",
    "memory_tool",
    "notify",
    "open_url",
    "pick_file",
    "select_option",
    "server_tool",
    "tool",
    "user_confirm",
]
