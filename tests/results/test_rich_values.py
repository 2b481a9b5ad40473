"""Rich results holding hostile values: non-JSON or deep data, huge ints, failing converters, odd binaries."""

import pydantic
import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t
from tests.support.toolset_agent import PNG, body_ok, every_call_answered, make, results_of, run


@pytest.mark.parametrize("value", [{"x": float("nan")}, {"x": float("inf")}, {"x": b"bytes"}, {"x": {1, 2}}])
def test_non_json_rich_data_is_refused(value):
    with pytest.raises(pydantic.ValidationError, match="JSON"):
        r.RichResult(kind="json", data=value)


def test_huge_ints_and_unicode_in_rich_data_reach_the_model():
    rich = r.RichResult(kind="my.kind", data={"n": 10**400, "s": "ünï 🚀"}, summary="sum")
    text = r.model_content(rich, 100_000)
    assert text.startswith("[my.kind] sum\n") and "1" + "0" * 400 in text and "ünï 🚀" in text


def test_deep_nesting():
    data = []
    cur = data
    for _ in range(5000):
        nxt = []
        cur.append(nxt)
        cur = nxt
    try:
        rich = r.RichResult(kind="json", data=data)
    except (pydantic.ValidationError, RecursionError):
        return  # refused: fine
    assert isinstance(r.model_content(rich, 100), str)


def test_a_backend_tool_returning_deeply_nested_rich_is_an_error_result():
    @nt.tool
    def deep() -> r.RichResult:
        """Deep."""
        data = []
        cur = data
        for _ in range(5000):
            nxt = []
            cur.append(nxt)
            cur = nxt
        return r.RichResult(kind="json", data=data)

    agent, script = make(t.turn(t.tool_use("deep", id="d")), t.reply("ok"), tools=[deep])
    run(agent.run("go"))
    body_ok(script)
    assert every_call_answered(agent.state)


def test_converter_raising_or_returning_wrong_type_is_an_error_result():
    def boom(value):
        raise RuntimeError("boom")

    def wrong(value):
        return "a string"

    class W1:
        pass

    class W2:
        pass

    r.register_converter(W1, boom)
    r.register_converter(W2, wrong)
    try:

        @nt.tool
        def give1() -> object:
            """W1."""
            return W1()

        @nt.tool
        def give2() -> object:
            """W2."""
            return W2()

        agent, script = make(
            t.turn(t.tool_use("give1", id="a"), t.tool_use("give2", id="b")),
            t.reply("ok"),
            tools=[give1, give2],
        )
        run(agent.run("go"))
        body_ok(script)
        got = results_of(script.requests[1])
        assert got["a"]["is_error"] and "boom" in got["a"]["content"]
        assert got["b"]["is_error"] and "RichResult" in got["b"]["content"]
    finally:
        r.unregister_converter(W1)
        r.unregister_converter(W2)


@pytest.mark.parametrize(
    "data,mime",
    [
        (b"not a png", "image/png"),
        (PNG, "image/jpeg"),
        (b"", "image/png"),
        (b"%PDF-1.4 tiny", "application/pdf"),
        (b"garbage", "application/pdf"),
        (b"\x00" * (6 * 1024 * 1024), "image/png"),
        (b"x" * 100, "application/zip"),
        (PNG, "image/webp"),
        (b"", "application/pdf"),
    ],
)
def test_binary_with_wrong_mime_or_giant_data_never_breaks_the_request(data, mime):
    @nt.tool
    def give() -> r.RichResult:
        """Bin."""
        return r.binary(data, mime, filename="f")

    agent, script = make(t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give])
    run(agent.run("go"))
    body_ok(script)
    assert every_call_answered(agent.state)


def test_binary_mime_uppercase_refused():
    with pytest.raises(pydantic.ValidationError):
        r.binary(PNG, "image/PNG")
