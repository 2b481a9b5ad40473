"""AG-UI client tools' `pattern`s: matched in linear time (RE2), or refused up front when RE2 cannot.

A client tool saying `{"type": "string", "pattern": "^(a+)+$"}` made checking the model's
`"aaaa…ab"` take exponential time on the event loop: every request of the worker waited. Each run
here goes under a generous watchdog (a thread joined for 120 s): it asserts the run ends, not how fast.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx

from notebook_tools import testing as t
from notebook_tools.tools._patterns import NOT_LINEAR
from tests.support.agui_app import TOOL, App, body, events, post, refused, tool

EVIL = "^(a+)+$"
ADVERSARIAL = "a" * 50_000 + "b"


def finishes(check: Callable[[], Any], seconds: float = 120.0) -> Any:
    answer: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: answer.update(value=check()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the run did not end in {seconds} s: the pattern backtracks"
    assert "value" in answer, "the run raised (see the thread's traceback above)"
    return answer["value"]


def told(app: App) -> str:
    """The tool result the model was sent last (it must be an error)."""
    [result] = [b for b in app.script.requests[-1]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert result["is_error"] is True, result
    content = result["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def one_run(app: App, parameters: dict[str, Any]) -> httpx.Response:
    [r] = finishes(lambda: post(app, body([tool(parameters)])))
    return r


def test_a_catastrophic_client_pattern_checks_the_models_adversarial_argument_in_linear_time():
    parameters = {"type": "object", "properties": {"code": {"type": "string", "pattern": EVIL}}}
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"code": ADVERSARIAL})), t.reply("I will fix that."))
    found = events(one_run(app, parameters))
    result = next(e for e in found if e["type"] == "TOOL_CALL_RESULT")
    assert f"does not match {EVIL!r}" in result["content"]
    assert f"does not match {EVIL!r}" in told(app)


def test_a_catastrophic_pattern_property_checks_the_models_argument_names_in_linear_time():
    parameters = {
        "type": "object",
        "patternProperties": {EVIL: {"type": "integer"}},
        "additionalProperties": False,
    }
    app = App(t.turn("Picking.", t.tool_use(TOOL, {ADVERSARIAL: 1})), t.reply("I will fix that."))
    events(one_run(app, parameters))
    assert "do" in told(app) and "not match any of the regexes" in told(app)


def test_a_client_tool_with_a_lookahead_pattern_is_refused_before_anything_runs():
    app = App(t.turn("Picking.", t.tool_use(TOOL, {"code": "x"})), t.reply("done"))
    parameters = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^(?=.*[0-9]).{8,}$"}},
    }
    answer = refused(one_run(app, parameters), 422, TOOL)
    assert answer["error"].endswith(f"parameters.properties.code.pattern: {NOT_LINEAR}"), answer
    nested = {"type": "object", "patternProperties": {r"^(\w)\1$": {}}}
    refused(one_run(app, nested), 422, "parameters.patternProperties", "backreferences")
    too_many = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^a{2000}$"}}}
    refused(one_run(app, too_many), 422, "parameters.properties.code.pattern", "1000")
    assert app.store.list_sessions() == [] and app.script.requests == []


def test_ecma_262_patterns_python_could_not_compile_are_taken_and_checked():
    # `(?<name>...)` and `\u{...}` are ECMA-262 (JSON Schema's dialect) that Python's `re` refused:
    # the metaschema's `regex` format refused them as "not a 'regex'" before.
    parameters = {
        "type": "object",
        "properties": {
            "month": {"type": "string", "pattern": r"^(?<year>\d{4})-(?<month>\d\d)$"},
            "mood": {"type": "string", "pattern": r"^[\u{1F600}-\u{1F64F}]$"},
        },
    }
    app = App(
        t.turn("Picking.", t.tool_use(TOOL, {"month": "2024-5", "mood": "😀"})), t.reply("I will fix that.")
    )
    events(one_run(app, parameters))
    said = told(app)
    assert "'2024-5' does not match" in said and "mood" not in said
