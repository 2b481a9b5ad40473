"""DataFrames and Series of every odd shape as rich results: converted, sent to the model validly, paged."""

import json

import numpy as np
import pandas as pd
import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t
from tests.support.toolset_agent import body_ok, make, results_of, run


def frames():
    idx = pd.MultiIndex.from_tuples([("a", "x"), ("a", "y"), ("b", "x")])
    yield "multiindex", pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=idx)
    yield "dupcols", pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    yield (
        "mixed",
        pd.DataFrame({"i": [1, None], "s": ["x", None], "f": [1.5, float("nan")], "b": [True, False]}),
    )
    yield "tz", pd.DataFrame({"t": pd.date_range("2024-01-01", periods=3, tz="Europe/Paris")})
    yield "cat", pd.DataFrame({"c": pd.Categorical(["a", "b", "a"])})
    yield "empty", pd.DataFrame()
    yield "zerocols", pd.DataFrame(index=range(5))
    yield "zerorows", pd.DataFrame(columns=["a", "b"])
    yield "objects", pd.DataFrame({"o": [{"k": 1}, [1, 2], None, b"\x00\xff" * 300, 10**30, float("inf")]})
    yield "huge_ints", pd.DataFrame({"o": [2**70, -(2**70)]})
    yield "int_colnames", pd.DataFrame({0: [1], 1.5: [2], None: [3]})
    yield "nested_index", pd.DataFrame({"a": [1, 2]}, index=pd.MultiIndex.from_tuples([(1, "x"), (2, "y")]))
    yield "timedelta", pd.DataFrame({"d": pd.to_timedelta([1, 2], unit="s")})
    yield "period", pd.DataFrame({"p": pd.period_range("2024-01", periods=2, freq="M")})
    yield "interval", pd.DataFrame({"i": pd.interval_range(0, 2)})
    yield "complex", pd.DataFrame({"c": [1 + 2j, 3j]})
    yield "nat", pd.DataFrame({"t": [pd.NaT, pd.Timestamp("2024-01-01")]})
    yield (
        "nullable",
        pd.DataFrame({"i": pd.array([1, None], dtype="Int64"), "s": pd.array(["a", None], dtype="string")}),
    )
    yield "sparse", pd.DataFrame({"s": pd.arrays.SparseArray([0, 0, 1])})
    yield "wide", pd.DataFrame(np.zeros((3, 10_000)))
    yield "series", pd.Series([1, 2, 3], name="s")
    yield "series_noname", pd.Series([1, 2, 3])
    yield "dt_index", pd.DataFrame({"a": [1, 2]}, index=pd.date_range("2024", periods=2, tz="UTC"))
    yield "long_colname", pd.DataFrame({"x" * 100_000: [1]})


@pytest.mark.parametrize("name,frame", list(frames()), ids=[n for n, _ in frames()])
def test_frames_convert_and_reach_the_model_validly(name, frame):
    rich = r.convert(frame)
    assert rich is not None and rich.kind == "table"
    json.dumps(rich.model_dump(mode="json"), allow_nan=False)
    content = r.model_content(rich, 100_000)
    assert isinstance(content, str) and len(content) <= 100_000 + 100

    @nt.tool
    def give() -> object:
        """Gives a frame."""
        return frame

    agent, script = make(t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give])
    run(agent.run("go"))
    body_ok(script)
    block = results_of(script.requests[1])["g"]
    assert not block.get("is_error"), block
    assert "g" in agent.results


def test_wide_frame_model_text_within_budget():
    rich = r.convert(pd.DataFrame(np.zeros((3, 10_000))))
    assert len(rich.data["model_text"]) <= 4000
    assert len(rich.data["columns"]) <= 200


def test_page_of_out_of_range_and_negative():
    frame = pd.DataFrame({"a": range(10)})
    assert r.page_of(frame, 10**9)["start"] == 9
    assert r.page_of(frame, -5)["start"] == 0
    assert r.page_of(pd.DataFrame(), 3)["rows"] == []
    r.page_of(frame, 0, 0)
    r.page_of(frame, 0, 10**9)
