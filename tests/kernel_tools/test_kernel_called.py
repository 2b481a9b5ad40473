"""What a run reaches beyond its own syntax tree: the notebook's functions it calls, and views.

A run that calls `clean()` (defined in an earlier cell) or writes through a view of an array
(`v = arr[:5]`, in this run or an earlier cell) changes variables its own code never names. They
must be checkpointed (undo restores them exactly) and, where the function reassigns or deletes a
variable or writes a file, the approval card must say so.
"""

import asyncio
import linecache

import numpy as np
import palmerpenguins
import pandas as pd

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.kernel_tools._called import follow_calls
from notebook_tools.kernel_tools._reading import read_code

CELL = """
def clean():
    global df, made
    df = df.dropna()
    made = len(df)
    df.to_csv('clean.csv')

def tidy():
    global spare
    clean()
    del spare
"""


def notebook(source=CELL, with_source=True):
    """A namespace as a notebook's: penguins, a spare variable, and the cell's functions defined in it
    (IPython keeps a cell's source in linecache; without it only the bytecode can be read)."""
    ns = {"df": palmerpenguins.load_penguins(), "spare": [1, 2], "np": np}
    name = f"<ipython-input-{id(source)}-{with_source}>"
    linecache.cache.pop(name, None)
    if with_source:
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), ns)
    return ns


def reading(code, ns):
    return follow_calls(read_code(code, frozenset(ns)), ns)


def test_a_called_function_s_rebinds_deletes_and_file_writes_are_the_run_s_transitively():
    ns = notebook()
    r = reading("tidy()", ns)
    assert {"df", "made", "spare"} <= r.binds
    details = [x.detail for x in r.risks]
    assert "calls clean(), which reassigns global 'df'" in details
    assert "calls tidy(), which deletes variable 'spare'" in details
    assert "in clean(): line 5: df.to_csv(...) writes a file" in details  # read from its source
    assert "made" not in " ".join(details)  # a new global is bound, not a reassignment


def test_without_its_source_a_function_is_still_followed_by_its_bytecode():
    ns = notebook(with_source=False)
    r = reading("clean()", ns)
    assert {"df", "made"} <= r.binds
    assert [x.kind for x in r.risks] == ["reassign"]  # the file write is in the source only


def test_a_function_that_only_reads_is_no_risk_but_what_it_reads_is_checkpointed():
    ns = notebook("def show():\n    print(df.head())\n    df.sort_values('year', inplace=True)\n")
    r = reading("show()", ns)
    assert "df" in r.mutates  # it may change df in place: checkpointed
    assert {x.kind for x in r.risks} == {"inplace"}  # from its source


def test_library_functions_and_names_not_called_are_not_followed():
    ns = notebook()
    ns["mean"] = np.mean  # not the notebook's
    r = reading("x = mean(df.year)", ns)
    assert not r.risks and r.binds == {"x"} and r.mutates == frozenset()


def run_approving(ns, code, *replies):
    script = t.ScriptedTransport(t.turn(t.tool_use("run_code", {"code": code}, id="r1")), *replies)
    kernel = nt.KernelTools(ns, approval="risky")
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel])
    result = asyncio.run(agent.run("go"))
    return agent, kernel, result


def test_a_run_that_calls_clean_asks_first_saying_why_and_undo_restores_everything_it_changed(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # clean() writes clean.csv
    ns = notebook()
    original = ns["df"].copy()
    agent, kernel, paused = run_approving(ns, "tidy()", t.reply("done"))
    assert paused.stop_reason == "awaiting_approval"
    [pending] = agent.state.pending_approvals
    reasons = kernel._scope(pending.input).reasons  # what the approval card shows under "why it asks"
    assert "calls clean(), which reassigns global 'df'" in reasons
    assert "calls tidy(), which deletes variable 'spare'" in reasons
    asyncio.run(agent.resume([nt.ApprovalDecision(tool_use_id="r1", approved=True)]))
    assert len(ns["df"]) == 333 and "spare" not in ns and ns["made"] == 333
    text = asyncio.run(agent.run_manual("undo", {})).content
    assert "undid c1" in text
    pd.testing.assert_frame_equal(ns["df"], original)
    assert ns["spare"] == [1, 2] and "made" not in ns


def test_undo_restores_an_array_written_through_a_view_made_in_the_run_or_in_an_earlier_cell():
    arr = np.arange(10.0)
    ns = {"arr": arr.copy(), "w": None}
    ns["w"] = ns["arr"][5:]  # an earlier cell's view
    code = "v = arr[:5]\nv[:] = -1\nw *= 100"
    script = t.ScriptedTransport(t.turn(t.tool_use("run_code", {"code": code}, id="r1")), t.reply("done"))
    kernel = nt.KernelTools(ns, approval="auto")
    agent = nt.Agent(client=script.client(), model="claude-test", plugins=[kernel])
    asyncio.run(agent.run("go"))
    assert ns["arr"][0] == -1 and ns["arr"][9] == 900
    asyncio.run(agent.run_manual("undo", {}))
    assert np.array_equal(ns["arr"], arr)
    assert np.array_equal(ns["w"], arr[5:]) and "v" not in ns
