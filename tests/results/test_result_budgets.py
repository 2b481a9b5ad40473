"""Result limits: the model's text at tiny budgets, an agent's tiny max_result_chars, how many are kept."""

import pandas as pd
import pytest

import notebook_tools as nt
from notebook_tools import results as r
from notebook_tools import testing as t
from tests.support.toolset_agent import body_ok, make, run


@pytest.mark.parametrize("max_chars", [0, 1, 2, 50])
def test_model_content_budget_edges(max_chars):
    for rich in [
        r.text("hello world " * 50),
        r.diff("a", "x\n", "y\n"),
        r.convert(pd.DataFrame({"a": range(100)})),
    ]:
        out = r.model_content(rich, max_chars)
        assert isinstance(out, str) and out


@pytest.mark.parametrize("max_chars", [0, 1, 50])
def test_agent_with_tiny_budget_sends_valid_requests(max_chars):
    @nt.tool
    def give() -> object:
        """Gives a frame."""
        return pd.DataFrame({"a": range(100)})

    agent, script = make(
        t.turn(t.tool_use("give", id="g")), t.reply("ok"), tools=[give], max_result_chars=max_chars
    )
    run(agent.run("go"))
    body_ok(script)


def test_kept_results_limit():
    kept = r.KeptResults(limit=2)
    for i in range(5):
        kept.keep(r.KeptResult(str(i), "n", i, None))
    assert list(kept) == ["3", "4"]
