"""The Messages API's side: what it refuses, the options a request takes, and a failed turn in words.

The rules are the API's own, each citing its source: `request_errors` checks a whole request,
`history_errors` a conversation, `content_block_errors` one tool result's blocks; each returns the
API's refusals as sentences (none: the API would take it). `TOOL_NAME_RE` is the pattern a tool's
name must match. `RequestOptions` and `ContextBudget` are what a request may ask for beyond its
messages; `explain` turns a failed turn into one `Explained` sentence with its details folded and
whether a retry helps; `cost_of` prices a usage by the dated price list.

Imports nothing of the package but `_exceptions`.
"""

from ._errors import Explained, explain
from ._options import ContextBudget, RequestOptions
from ._prices import cost_of
from ._rules import TOOL_NAME_RE, content_block_errors, history_errors, request_errors

__all__ = [
    "TOOL_NAME_RE",
    "ContextBudget",
    "Explained",
    "RequestOptions",
    "content_block_errors",
    "cost_of",
    "explain",
    "history_errors",
    "request_errors",
]
