"""Checkpoints and undo: every restored variable equals what it was before the undone run.

A property test runs random sequences of pandas, numpy, list and dict operations, each after a
checkpoint of the names it touches (read from its code's syntax tree, as the toolset does), then
undoes them in a random order, one step or back to an earlier checkpoint at a time.
"""

import copy
import warnings

import numpy as np
import palmerpenguins
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_tools.kernel_tools import Checkpoints
from notebook_tools.kernel_tools._reading import read_code
from notebook_tools.kernel_tools._undo import CheckpointTooLarge, UnknownCheckpoint

STEPS = [
    "df.loc[df.index[:3], 'b'] = -1.5",
    "df['c'] = df['a'] * 2",
    "df = df[df['a'] > 2]",
    "df = df.sort_values('b')",
    "if 'c' in df:\n    df.drop(columns=['c'], inplace=True)",
    "df['a'] = df['a'].astype('float64')",
    "df['d'] = 1.0\ndel df['d']",
    "if 'b' in df:\n    del df['b']",
    "arr[0] = 99",
    "arr = arr * 2",
    "arr += 1",
    "rows.append(len(rows))",
    "rows = rows[:1]",
    "meta.update({'k': len(meta)})",
    "meta.pop('k', None)",
    "extra = df.head(2)",
    "del extra",
    "alias = rows",
    "alias.append(-1)",
    "n = n + 1",
]


def namespace():
    return {
        "df": pd.DataFrame({"a": np.arange(8), "b": np.linspace(0, 1, 8)}),
        "arr": np.arange(5),
        "rows": [1, 2, 3],
        "meta": {"x": 1},
        "n": 0,
    }


def snapshot(ns):
    return {
        k: (v.copy(deep=True) if isinstance(v, pd.DataFrame) else copy.deepcopy(v))
        for k, v in ns.items()
        if not k.startswith("__")
    }


def assert_same(ns, expected):
    names = {k for k in ns if not k.startswith("__")}
    assert names == set(expected)
    for name, value in expected.items():
        now = ns[name]
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(now, value)
        elif isinstance(value, np.ndarray):
            assert now.dtype == value.dtype
            np.testing.assert_array_equal(now, value)
        else:
            assert now == value, name


def run_step(ns, checkpoints, code):
    reading = read_code(code, set(ns))
    names = reading.touched(set(ns))
    before = snapshot(ns)
    taken = checkpoints.take(ns, names, code)
    try:
        with warnings.catch_warnings():  # pandas 3 warns that inplace= goes away; people still write it
            warnings.simplefilter("ignore")
            exec(code, ns)
    except (KeyError, NameError, ValueError):
        pass  # a step that fails leaves what it did so far: the checkpoint still restores it
    return taken, before


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=25), data=st.data())
def test_random_runs_undone_in_a_random_order_restore_every_variable(steps, data):
    ns = namespace()
    checkpoints = Checkpoints()
    taken = [run_step(ns, checkpoints, code) for code in steps]
    while taken:
        if data.draw(st.booleans(), label="one step"):
            checkpoints.undo(ns)
            _, before = taken.pop()
        else:
            index = data.draw(st.integers(0, len(taken) - 1), label="back to")
            checkpoints.undo(ns, to=taken[index][0].id)
            before = taken[index][1]
            del taken[index:]
        assert_same(ns, before)
    assert checkpoints.history == []


def test_a_cleaning_of_the_real_penguins_is_undone_exactly_and_its_changes_named():
    original = palmerpenguins.load_penguins()
    ns = {"df": original.copy()}
    checkpoints = Checkpoints()
    code = "df = df.dropna()\ndf['species'] = df['species'].astype('category')\ndf['ratio'] = df.bill_length_mm / df.bill_depth_mm\ndel df['year']"
    taken = checkpoints.take(ns, read_code(code, set(ns)).touched(set(ns)), "clean")
    exec(code, ns)
    [change] = checkpoints.changes(ns, taken)
    assert (change.rows_removed, change.columns_added, change.columns_removed) == (11, ("ratio",), ("year",))
    assert change.dtype_changes["species"][1] == "category"
    assert "Adelie" not in change.summary and "11 rows dropped" in change.summary
    checkpoints.undo(ns)
    pd.testing.assert_frame_equal(ns["df"], original)


def test_changed_cells_are_named_apart_from_the_summary():
    ns = {"df": palmerpenguins.load_penguins()}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["df"], "fill")
    ns["df"].loc[ns["df"].sex.isna(), "sex"] = "unknown"
    [change] = checkpoints.changes(ns, taken)
    assert 0 < len(change.cells) <= 5 and all(
        c.column == "sex" and "unknown" in c.after for c in change.cells
    )
    assert "unknown" not in change.summary


def test_a_name_the_run_created_is_removed_and_aliases_stay_one_object():
    shared = [1, 2]
    ns = {"a": shared, "b": shared}
    checkpoints = Checkpoints()
    checkpoints.take(ns, ["a", "new"], "run")
    ns["a"].append(3)
    ns["new"] = 1
    checkpoints.undo(ns)
    assert "new" not in ns and ns["a"] == [1, 2] and ns["a"] is ns["b"]


def test_what_cannot_be_copied_is_named_and_left_alone():
    import threading

    lock = threading.Lock()
    ns = {"lock": lock, "x": [1]}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["lock", "x"], "run")
    assert "lock" in taken.not_kept and "x" not in taken.not_kept
    ns["x"].append(2)
    checkpoints.undo(ns)
    assert ns["lock"] is lock and ns["x"] == [1]


def test_the_budget_lets_the_oldest_go_and_refuses_a_checkpoint_that_alone_is_over_it():
    ns = {"arr": np.zeros(1000)}  # 8,000 bytes
    checkpoints = Checkpoints(budget_bytes=20_000)
    ids = [checkpoints.take(ns, ["arr"], f"run {i}").id for i in range(3)]
    assert [c.id for c in checkpoints.history] == ids[1:] and checkpoints.dropped == 1
    ns["big"] = np.zeros(10_000)
    with pytest.raises(CheckpointTooLarge):
        checkpoints.take(ns, ["big"], "too big")
    assert [c.id for c in checkpoints.history] == ids[1:]
    with pytest.raises(UnknownCheckpoint):
        checkpoints.undo(ns, to="c1")
    assert [c.id for c in checkpoints.history] == ids[1:]
