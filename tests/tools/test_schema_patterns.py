"""JSON Schema regexes are matched by RE2, in linear time: no pattern can stall a worker.

Python's `re` backtracks: `^(a+)+$` against "aaaa…ab" takes exponential time. Every check here
that could backtrack runs under a generous watchdog (a thread joined for 10 s): what it asserts is
that the check ends at all, never how fast it is.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import notebook_tools as nt
from notebook_tools.mcp._elicitation import _format_errors
from notebook_tools.mcp._elicitation import schema_problem as elicitation_problem
from notebook_tools.mcp._plugins import _schema as mcp_schema
from notebook_tools.mcp._plugins import result_blocks
from notebook_tools.tools._patterns import NOT_LINEAR, matcher, pattern_reason, schema_pattern_problem, search
from notebook_tools.tools._schemas import check_schema, error_lines, validator

EVIL = "^(a+)+$"
ADVERSARIAL = "a" * 50_000 + "b"
LOOKAHEAD = r"^(?=.*\d)[a-z\d]{8,}$"  # "a password with a digit": fine in Python, not in RE2
HUGE = r"^(?:[a-z]|\p{L}){80}$"


def finishes(check: Callable[[], Any], seconds: float = 10.0) -> Any:
    """What `check()` returns, asserting it ended within `seconds` (a stalled one is left behind)."""
    answer: dict[str, Any] = {}

    def run() -> None:
        try:
            answer["value"] = check()
        except BaseException as exc:
            answer["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still checking after {seconds} s: the regex backtracks"
    if "error" in answer:
        raise answer["error"]
    return answer["value"]


def errors(schema: dict[str, Any], value: Any) -> list[str]:
    return finishes(lambda: error_lines(validator(schema), value))


def test_a_catastrophic_pattern_against_50000_characters_is_refused_not_stalled():
    [line] = errors({"type": "string", "pattern": EVIL}, ADVERSARIAL)
    assert line.endswith(f"does not match {EVIL!r}")
    assert errors({"type": "string", "pattern": EVIL}, "a" * 50_000) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "patternProperties": {EVIL: {"type": "integer"}}, "additionalProperties": False},
        {"type": "object", "patternProperties": {EVIL: {"type": "integer"}}, "unevaluatedProperties": False},
        {"type": "object", "allOf": [{"patternProperties": {EVIL: {}}}], "unevaluatedProperties": False},
        {"type": "object", "propertyNames": {"pattern": EVIL}},
    ],
    ids=["additionalProperties", "unevaluatedProperties", "unevaluated-through-allOf", "propertyNames"],
)
def test_property_names_are_matched_in_linear_time_too(schema: dict[str, Any]):
    # jsonschema matched `patternProperties` with `re` again when working out `additionalProperties`
    # and `unevaluatedProperties`: a model's argument names are as adversarial as its values.
    assert errors(schema, {ADVERSARIAL: 1}) != []
    assert errors(schema, {"aaa": 1}) == []


def test_a_schema_naming_another_draft_inside_is_still_matched_by_re2():
    # jsonschema's `evolve` switches to its own class (Python's `re`) for a subschema naming a `$schema`.
    nested = {
        "type": "object",
        "properties": {"x": {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": EVIL}},
    }
    assert errors(nested, {"x": ADVERSARIAL}) != []
    looped = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"x": {"type": "string", "pattern": EVIL}, "child": {"$ref": "#"}}}  # fmt: skip
    assert errors(looped, {"child": {"x": ADVERSARIAL}}) != []
    assert errors(looped, {"child": {"x": "aa"}}) == []


def test_pattern_properties_are_matched_by_re2():
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "patternProperties": {r"^x_\d+$": {"type": "integer"}, r"^\p{Greek}+$": {"type": "string"}},
        "additionalProperties": False,
    }
    assert errors(schema, {"name": "a", "x_1": 1, "x_22": 2, "αβ": "ok"}) == []
    assert errors(schema, {"x_1": "one"}) == ["x_1: 'one' is not of type 'integer'"]
    assert errors(schema, {"x_٣": 1}) == [  # ECMA's `\d` is ASCII (Python's took other digits)
        "'x_٣' does not match any of the regexes: '^\\\\p{Greek}+$', '^x_\\\\d+$'"
    ]
    assert errors(schema, {"y": 1, "z": 2})[0].startswith("'y', 'z' do not match any of the regexes")
    unevaluated = {"type": "object", "patternProperties": {"^a": True}, "unevaluatedProperties": False}
    assert errors(unevaluated, {"ab": 1}) == []
    assert errors(unevaluated, {"b": 1}) == ["Unevaluated properties are not allowed ('b' was unexpected)"]


def test_a_lookahead_in_a_tool_declared_in_python_still_validates():
    @nt.tool(
        input_schema={"type": "object", "properties": {"password": {"type": "string", "pattern": LOOKAHEAD}}}
    )
    def sign_up(password: str) -> str:
        """Sign up."""
        return "ok"

    assert sign_up.input_errors({"password": "abcdefg1"}) == []
    assert sign_up.input_errors({"password": "abcdefgh"}) == [
        f"password: 'abcdefgh' does not match {LOOKAHEAD!r}"
    ]

    class Answer(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(regex_engine="python-re")  # (pydantic's own refuses it too)
        code: str = pydantic.Field(pattern=r"^(\w)\w*\1$")  # a backreference: Python's `re` it is

    asked = nt.Tool(lambda **kw: None, name="ask", description="d", executor="frontend", output_schema=Answer)
    assert asked.output_value_errors({"code": "abca"}) == []
    assert asked.output_value_errors({"code": "abcd"}) != []
    assert pattern_reason(LOOKAHEAD) == NOT_LINEAR


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^\u00e9$", "é", True),
        (r"^\uD83D\uDE00$", "😀", True),  # a surrogate pair is one code point
        (r"^\u{1F600}$", "😀", True),
        (r"^\s$", "\u00a0", True),  # ECMA's whitespace: no-break space, U+FEFF, U+2028 ...
        (r"^\s$", "\ufeff", True),
        (r"^\S$", "\u3000", False),
        (r"^[\s]$", "\u2028", True),
        (r"^.$", "\u2028", False),  # `.` stops at line terminators
        (r"^.$", "\r", False),
        (r"^a$", "a\n", False),  # `$` is the end of the text (Python's matched before a final newline)
        (r"^\d$", "٣", False),  # ASCII digits, as in ECMA
        (r"^\w+$", "héllo", False),
        (r"^[^]$", "\n", True),
        (r"^[]$", "", False),
        (r"^a\/b$", "a/b", True),
        (r"^[[:alpha:]]$", "[]", True),  # ECMA: a class of `[`, `:`, `a`, ... then a `]`
        (r"^\cJ$", "\n", True),
        (r"^(?<year>\d{4})-\d\d$", "2024-05", True),
        (r"[\b]", "\b", True),
        ("^a", "a\ud800", True),  # a lone surrogate (valid JSON) is matched as U+FFFD
        ("\ufffd", "\ud800", True),
    ],
)
def test_ecma_262_patterns_mean_what_they_mean_in_a_browser(pattern: str, text: str, matches: bool):
    assert pattern_reason(pattern) is None, pattern_reason(pattern)
    assert search(pattern, text) is matches


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ({"properties": {"code": {"pattern": "^(?=a)"}}}, f"parameters.properties.code.pattern: {NOT_LINEAR}"),
        ({"properties": {"code": {"pattern": "(?<!a)b"}}}, f"parameters.properties.code.pattern: {NOT_LINEAR}"),
        ({"anyOf": [{}, {"pattern": r"(a)\1"}]}, f"parameters.anyOf.1.pattern: {NOT_LINEAR}"),
        ({"$defs": {"n": {"pattern": r"(?<n>a)\k<n>"}}}, f"parameters.$defs.n.pattern: {NOT_LINEAR}"),
        ({"patternProperties": {"^(?!x)": {}}}, f"parameters.patternProperties['^(?!x)']: {NOT_LINEAR}"),
        ({"properties": {"a": {"pattern": "a{1001}"}}}, "parameters.properties.a.pattern: repetition counts over 1000"),
        ({"x-ref-target": {"pattern": "(?=a)"}}, "parameters.x-ref-target.pattern"),  # a `$ref` may point there
        ({"properties": {"a": {"pattern": HUGE}}}, "parameters.properties.a.pattern: too large to match quickly"),
    ],
)  # fmt: skip
def test_an_untrusted_schema_with_a_pattern_re2_refuses_is_named_where(schema: dict[str, Any], said: str):
    found = schema_pattern_problem({"type": "object", **schema}, "parameters")
    assert found is not None and found.startswith(said), found


def test_a_huge_pattern_is_refused_for_untrusted_schemas_and_still_matched_by_re2_for_trusted_ones():
    # Linear, but 95,000 instructions outgrow RE2's state cache: 0.7 s for 50,000 characters.
    assert pattern_reason(HUGE) is not None and pattern_reason(HUGE).startswith("too large")
    assert errors({"type": "string", "pattern": HUGE}, "é" * 80) == []
    assert errors({"type": "string", "pattern": HUGE}, "é" * 79) != []


def test_an_untrusted_schema_whose_patterns_re2_takes_passes():
    schema = {
        "type": "object",
        "properties": {
            "a": {"pattern": EVIL},
            "b": {"pattern": r"^\u{1F600}|\p{L}$"},
            "pattern": {"type": "string"},
        },
        "patternProperties": {"^x-": {}},
        "enum": [{"pattern": 5}],
    }
    assert schema_pattern_problem(schema, "parameters") is None
    check_schema(schema)  # ECMA spellings Python's `re` refused (`\u{...}`, `\p{L}`) fit the metaschema


def test_an_mcp_servers_schema_with_a_lookahead_is_dropped_like_an_invalid_one():
    listed = {"type": "object", "properties": {"code": {"type": "string", "pattern": LOOKAHEAD}}}
    assert mcp_schema(listed) == {"type": "object"}  # the server checks its own arguments
    fine = {"type": "object", "properties": {"code": {"type": "string", "pattern": EVIL}}}
    assert mcp_schema(fine) == fine
    out = {"type": "object", "properties": {"code": {"type": "string", "pattern": EVIL}}}
    with pytest.raises(Exception, match="does not fit its outputSchema"):
        finishes(lambda: result_blocks({"content": [], "structuredContent": {"code": ADVERSARIAL}}, out))


def test_an_elicitation_schema_with_a_lookahead_is_refused_and_emails_are_checked_in_linear_time():
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": LOOKAHEAD}}}
    assert elicitation_problem(schema) == f"requestedSchema.properties.code.pattern: {NOT_LINEAR}"
    emailed = {"type": "object", "properties": {"to": {"type": "string", "format": "email"}}}
    assert elicitation_problem(emailed) == ""
    # Found: Python's `re` took 6 s on 20,000 dots for `^[^@\s]+@[^@\s]+\.[^@\s]+$` (quadratic).
    assert finishes(lambda: _format_errors(emailed, {"to": "a@" + "." * 200_000 + "@"})) != []
    assert _format_errors(emailed, {"to": "ann@example.com"}) == []
    assert _format_errors(emailed, {"to": "ann@example.com\n"}) != []


def test_compiled_patterns_are_cached():
    assert matcher(r"^[A-Z]{3}-\d{4}$") is matcher(r"^[A-Z]{3}-\d{4}$")


# A small grammar of regexes that RE2 and Python's `re` both take and mean alike.
_ATOMS = st.sampled_from(["a", "b", "ab", "-", ".", "[ab]", "[^a]", "[a-c]", r"\d", r"\w", "[a\\-]", "1"])


def _regex(depth: int = 2) -> st.SearchStrategy[str]:
    atom = _ATOMS if depth == 0 else st.one_of(_ATOMS, _regex(depth - 1).map(lambda r: f"({r})"))
    piece = st.tuples(atom, st.sampled_from(["", "", "*", "+", "?", "{1,2}", "*?"])).map("".join)
    branch = st.lists(piece, min_size=1, max_size=4).map("".join)
    anchored = st.tuples(st.sampled_from(["", "^"]), branch, st.sampled_from(["", "$"])).map("".join)
    return st.lists(anchored, min_size=1, max_size=3).map("|".join)


@settings(max_examples=200, deadline=None)
@given(pattern=_regex(), text=st.text(alphabet="ab1c-\n_ é", max_size=12))
def test_re2_agrees_with_python_re_on_simple_regexes(pattern: str, text: str):
    assert pattern_reason(pattern) is None
    # Python spelled as ECMA means: `$` only at the very end, `\d` and `\w` ASCII.
    python = re.search(pattern.replace("$", r"\Z"), text, re.ASCII) is not None
    assert search(pattern, text) is python, (pattern, text)
    value_errors = error_lines(validator({"type": "string", "pattern": pattern}), text)
    assert (value_errors == []) is python
