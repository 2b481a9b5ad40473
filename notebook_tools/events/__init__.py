"""Events: what an agent shows as it works and what a person does, on one bus every front end reads.

A `DisplayEvent` is something to show (a text delta, a tool starting, its progress, a pause for
answers, a prompt changing, ...); an `ActionEvent` is something a person did (a message, an answer,
a Stop, a tool run by hand). `Event` is either; each is a pydantic model with a `type` field and
round-trips through JSON. `EventBus` carries them (a failing subscriber never stops the publisher);
`EventRecorder` records and replays them. A `Prompt` is one question as a front end shows it (carried
by `PromptChanged`); a running tool reports progress, steps and previews through its `Reporter`
(`reporter()` inside a tool).
"""

from ._bus import EventBus, EventRecorder
from ._events import (
    ActionEvent,
    AnswerRefused,
    ApprovalRequired,
    ApprovalResponse,
    AwaitingFrontendTools,
    DisplayEvent,
    Event,
    Interrupt,
    ManualToolInvoke,
    MessageEvent,
    PromptAnswer,
    PromptChanged,
    Status,
    TextDelta,
    ToolCompleted,
    ToolErrorEvent,
    ToolProgress,
    ToolResultPreview,
    ToolResults,
    ToolsetChanged,
    ToolStarted,
    ToolStep,
    UsageEvent,
    UserInput,
)
from ._progress import Reporter, reporter
from ._prompt import Prompt
from ._reply_events import (
    AssistantBlock,
    ThinkingDelta,
    ToolInputDelta,
    TurnNotice,
)

__all__ = [
    "ActionEvent",
    "AnswerRefused",
    "ApprovalRequired",
    "ApprovalResponse",
    "AssistantBlock",
    "AwaitingFrontendTools",
    "DisplayEvent",
    "Event",
    "EventBus",
    "EventRecorder",
    "Interrupt",
    "ManualToolInvoke",
    "MessageEvent",
    "Prompt",
    "PromptAnswer",
    "PromptChanged",
    "Reporter",
    "Status",
    "TextDelta",
    "ThinkingDelta",
    "ToolCompleted",
    "ToolErrorEvent",
    "ToolInputDelta",
    "ToolProgress",
    "ToolResultPreview",
    "ToolResults",
    "ToolStarted",
    "ToolStep",
    "ToolsetChanged",
    "TurnNotice",
    "UsageEvent",
    "UserInput",
    "reporter",
]
