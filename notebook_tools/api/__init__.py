"""The Messages API's side: what it refuses, the shapes of its blocks, and one complete streamed request.

    _rules    what the API refuses (cited): roles, tool_use/tool_result pairing, names, images
    _blocks   the content blocks of a request, checked as the API checks them
    _stream   one streamed request through the real SDK, retried when cut off mid-stream
    _errors   a failed turn as a person reads it: one sentence, the details folded, whether Retry helps

Imports nothing of the package but `_exceptions`.
"""
