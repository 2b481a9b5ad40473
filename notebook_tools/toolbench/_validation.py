"""Checking a bench run's raw output against the tool's declared output schema."""

from __future__ import annotations

import json
from typing import Any

from ..tools._schemas import validator
from ..tools._tool import Tool

__all__ = ["validate_output"]


def validate_output(tool: Tool, output: Any) -> dict[str, Any]:
    """`{"status": "pass"}`, `{"status": "fail", "errors": [{"path", "message"}]}`, or status "none".

    A JSON string is parsed first (a tool that returns JSON text is checked on the value it encodes).
    """
    if tool.output_schema is None:
        return {"status": "none", "message": "no output schema registered"}
    value = output
    if isinstance(output, str):
        try:
            value = json.loads(output)
        except ValueError:
            value = output
    errors = sorted(validator(tool.output_schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return {"status": "pass"}
    return {
        "status": "fail",
        "errors": [
            {"path": "/" + "/".join(str(p) for p in e.absolute_path), "message": e.message}
            for e in errors[:50]
        ],
    }
