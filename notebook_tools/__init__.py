"""Human-in-the-loop tools for Claude agents in Jupyter.

The core (tools, the agent loop, state, events, stores, the scripted model)
imports no Jupyter module; the widget layer loads only when it is used.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._exceptions import (
    AgentBusyError,
    AgentSpecError,
    AugmentationError,
    CassetteError,
    CassetteMismatchError,
    CheckpointFileError,
    CheckpointTooLarge,
    ConfigurationError,
    CorruptSessionError,
    FileNotChosenError,
    FrontendToolCalledError,
    IncompleteResponseError,
    InvalidToolResultError,
    MCPServerError,
    NoFrontendError,
    NotebookToolsError,
    NothingToRetryError,
    PromptNotAnswered,
    SessionInvariantError,
    SessionNotFoundError,
    StaleSessionError,
    StoreError,
    ToolDefinitionError,
    ToolFailure,
    ToolResultError,
    ToolResultIdsError,
    UnknownCheckpoint,
    UnsupportedSchemaError,
    WidgetError,
)
from .agent import DEFAULT_MODEL, Agent, current_tool_use_id
from .api import ContextBudget, RequestOptions
from .events import ActionEvent, DisplayEvent, Event, EventBus, EventRecorder, Reporter, reporter
from .external import ACPAgent, ClaudeCode
from .mcp import MCPServer
from .prompts import PromptUI
from .session import (
    AgentState,
    FrontendAck,
    PendingFrontendTool,
    QueuedCall,
    RunResult,
    SetAside,
    StopReason,
    ToolResult,
    Usage,
)
from .stores import InMemoryStore, SessionStore, SQLiteStore
from .tools import (
    ApprovalDecision,
    ApprovalMode,
    ApprovalPreview,
    ApprovalScope,
    AuditRecord,
    Augmentation,
    Augmented,
    Blocked,
    Checkpoint,
    ContextItem,
    PathZones,
    PendingApproval,
    Plugin,
    Renderer,
    Skill,
    Tool,
    ToolsetState,
    ask_text,
    checkpoint,
    copy_to_clipboard,
    download_file,
    memory_tool,
    notify,
    open_url,
    pick_file,
    select_option,
    server_tool,
    tool,
    user_confirm,
)

if _TYPE_CHECKING:  # at run time `__getattr__` imports them when asked: psycopg is optional
    from .kernel_tools import KernelTools
    from .stores import PostgresStore

__version__ = "0.1.0"

_WIDGETS = {"CassetteUser", "Chat", "FileRecord", "ScriptedUser", "ToolBench", "ask"}
_CASSETTES = {"Cassette", "cassette"}


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext notebook_tools`: the `%%claude` cell magic and `%claude_cells` (see `widgets`)."""
    from .widgets import ClaudeMagics

    ClaudeMagics.register(ipython)


def __getattr__(name: str) -> object:
    # The widget layer imports anywidget; load it only when a notebook asks for it.
    if name in _WIDGETS:
        from . import widgets

        return getattr(widgets, name)
    if name in _CASSETTES:  # the testing package loads when a notebook records or replays
        from . import testing

        return getattr(testing, name)
    if name == "KernelTools":  # the kernel toolset loads when a notebook asks for it
        from . import kernel_tools

        return kernel_tools.KernelTools
    if name == "PostgresStore":  # psycopg is optional: imported only when asked for
        from . import stores

        return stores.PostgresStore
    raise AttributeError(f"module 'notebook_tools' has no attribute {name!r}")


__all__ = [
    "DEFAULT_MODEL",
    "ACPAgent",
    "ActionEvent",
    "Agent",
    "AgentBusyError",
    "AgentSpecError",
    "AgentState",
    "ApprovalDecision",
    "ApprovalMode",
    "ApprovalPreview",
    "ApprovalScope",
    "AuditRecord",
    "Augmentation",
    "AugmentationError",
    "Augmented",
    "Blocked",
    "Cassette",
    "CassetteError",
    "CassetteMismatchError",
    "CassetteUser",
    "Chat",
    "Checkpoint",
    "CheckpointFileError",
    "CheckpointTooLarge",
    "ClaudeCode",
    "ConfigurationError",
    "ContextBudget",
    "ContextItem",
    "CorruptSessionError",
    "DisplayEvent",
    "Event",
    "EventBus",
    "EventRecorder",
    "FileNotChosenError",
    "FileRecord",
    "FrontendAck",
    "FrontendToolCalledError",
    "InMemoryStore",
    "IncompleteResponseError",
    "InvalidToolResultError",
    "KernelTools",
    "MCPServer",
    "MCPServerError",
    "NoFrontendError",
    "NotebookToolsError",
    "NothingToRetryError",
    "PathZones",
    "PendingApproval",
    "PendingFrontendTool",
    "Plugin",
    "PostgresStore",
    "PromptNotAnswered",
    "PromptUI",
    "QueuedCall",
    "Renderer",
    "Reporter",
    "RequestOptions",
    "RunResult",
    "SQLiteStore",
    "ScriptedUser",
    "SessionInvariantError",
    "SessionNotFoundError",
    "SessionStore",
    "SetAside",
    "Skill",
    "StaleSessionError",
    "StopReason",
    "StoreError",
    "Tool",
    "ToolBench",
    "ToolDefinitionError",
    "ToolFailure",
    "ToolResult",
    "ToolResultError",
    "ToolResultIdsError",
    "ToolsetState",
    "UnknownCheckpoint",
    "UnsupportedSchemaError",
    "Usage",
    "WidgetError",
    "ask",
    "ask_text",
    "cassette",
    "checkpoint",
    "copy_to_clipboard",
    "current_tool_use_id",
    "download_file",
    "load_ipython_extension",
    "memory_tool",
    "notify",
    "open_url",
    "pick_file",
    "reporter",
    "select_option",
    "server_tool",
    "tool",
    "user_confirm",
]
