"""Checkpoints and undo: every restored variable equals what it was before the undone run.

Unit tests cover each behaviour on the real Palmer penguins data; a property test runs random
sequences of pandas, numpy, list and dict operations, each after a checkpoint of the names it
touches, then undoes them in a random order, one step or back to an earlier checkpoint at a time.
"""

import contextlib
import copy
import io
import json
import threading
import warnings

import numpy as np
import palmerpenguins
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notebook_tools._exceptions import NotebookToolsError
from notebook_tools.kernel_tools import Checkpoints
from notebook_tools.kernel_tools._undo import CheckpointTooLarge, UnknownCheckpoint


@contextlib.contextmanager
def inplace():
    """pandas 3.1 deprecates `inplace=`; people still write it, and the checkpoint must cover it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", getattr(pd.errors, "Pandas4Warning", FutureWarning))
        yield


def penguins():
    return palmerpenguins.load_penguins()


# -- the real penguins, cleaned and undone ----------------------------------------------------------


def test_a_cleaning_by_rebinding_is_undone_exactly_and_its_changes_named():
    original = penguins()
    ns = {"df": original.copy()}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["df"], "clean")
    df = ns["df"].dropna()
    df["species"] = df["species"].astype("category")
    df["ratio"] = df.bill_length_mm / df.bill_depth_mm
    ns["df"] = df.drop(columns=["year"])
    [change] = checkpoints.changes(ns, taken)
    assert change.change == "changed" and (change.before_type, change.after_type) == ("DataFrame",) * 2
    assert (change.rows_removed, change.rows_added) == (11, 0)
    assert (change.columns_added, change.columns_removed) == (["ratio"], ["year"])
    assert change.dtype_changes["species"][1] == "category"
    assert change.summary.startswith("df: DataFrame 344x8 → 333x8: 11 rows dropped")
    assert "Adelie" not in change.summary and "Adelie" not in json.dumps(
        {k: v for k, v in change.to_dict().items() if k != "cells"}
    )
    assert checkpoints.undo(ns) == [taken]
    pd.testing.assert_frame_equal(ns["df"], original)
    assert checkpoints.history == []


def test_in_place_cleaning_of_the_penguins_is_undone_exactly():
    original = penguins()
    original.attrs["source"] = "palmerpenguins"
    original.index.name = "row"
    df = original.copy(deep=True)
    ns = {"df": df}
    checkpoints = Checkpoints()
    checkpoints.take(ns, ["df"], "in place")
    with inplace():
        df.fillna({"bill_length_mm": 0.0, "sex": "unknown"}, inplace=True)
        df.loc[df.island == "Dream", "body_mass_g"] = -1.0
        df.sort_values("bill_depth_mm", inplace=True)
        df.drop(columns=["year"], inplace=True)
    df["island"] = df["island"].astype("category")
    df.index.name = "other"
    df.attrs["source"] = "changed"
    checkpoints.undo(ns)
    pd.testing.assert_frame_equal(ns["df"], original)
    assert ns["df"].attrs == {"source": "palmerpenguins"} and ns["df"].index.name == "row"


def test_changed_cells_are_kept_apart_from_the_summary():
    ns = {"df": penguins()}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["df"], "fill")
    ns["df"].loc[ns["df"].sex.isna(), "sex"] = "unknown"
    [change] = checkpoints.changes(ns, taken)
    assert len(change.cells) == 5
    assert all(c.column == "sex" and c.after == "'unknown'" and c.before == "nan" for c in change.cells)
    assert change.cells[0].row == "3"
    assert "unknown" not in change.summary and change.summary.endswith("values changed")
    assert json.loads(json.dumps(change.to_dict()))["cells"][0] == change.cells[0].to_dict()


def test_a_cell_value_is_cut_to_80_characters():
    ns = {"df": pd.DataFrame({"text": ["short"]})}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["df"], "long")
    ns["df"].loc[0, "text"] = "y" * 500
    [cell] = checkpoints.changes(ns, taken)[0].cells
    assert len(cell.after) == 80 and cell.after.endswith("...")


def test_a_dtype_change_alone_is_named_column_by_column():
    ns = {"df": penguins()}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["df"], "category")
    ns["df"]["sex"] = ns["df"]["sex"].astype("category")
    [change] = checkpoints.changes(ns, taken)
    assert change.dtype_changes == {"sex": (str(penguins()["sex"].dtype), "category")}
    assert f"column 'sex' dtype {penguins()['sex'].dtype} → category" in change.summary


def test_what_did_not_change_is_left_out_and_added_names_are_found_with_also():
    ns = {"df": penguins(), "n": 1, "rows": [1, 2]}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["df", "n", "rows"], "run")
    ns["rows"].append(3)
    ns["n"] = 2
    ns["made"] = np.zeros((2, 3))
    del ns["df"]
    changes = {c.name: c for c in checkpoints.changes(ns, taken, also=["made", "never"])}
    assert set(changes) == {"df", "n", "rows", "made"}
    assert changes["rows"].summary == "rows: list of 2 → list of 3"
    assert changes["n"].summary == "n: int changed"
    assert (changes["made"].change, changes["made"].summary) == ("added", "made: new ndarray 2x3")
    assert (changes["df"].change, changes["df"].after_type) == ("removed", None)
    assert checkpoints.changes(ns | {"df": penguins(), "n": 1, "rows": [1, 2]}, taken) == []


def test_an_array_change_names_its_shape_dtype_and_changed_elements():
    ns = {"a": np.array([1.0, np.nan, 3.0]), "b": np.arange(4), "c": np.arange(4)}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["a", "b", "c"], "arrays")
    ns["a"][0] = 5.0  # the NaN stays a NaN: not a change
    ns["b"] = ns["b"].astype("float64")
    ns["c"] = ns["c"].reshape(2, 2)
    changes = {c.name: c for c in checkpoints.changes(ns, taken)}
    assert (
        changes["a"].elements_changed == 1
        and changes["a"].summary == "a: ndarray 3 changed: 1 elements changed"
    )
    assert changes["b"].summary == "b: ndarray 4 changed: dtype int64 → float64, 0 elements changed"
    assert changes["c"].summary == "c: ndarray 4 → ndarray 2x2" and changes["c"].elements_changed is None


def test_comparing_never_raises_and_an_uncomparable_value_counts_as_changed():
    class Grumpy:
        def __eq__(self, other):
            raise RuntimeError("no comparing me")

        __hash__ = None

    ns = {"g": Grumpy(), "frames": [pd.DataFrame({"a": [1]})]}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["g", "frames"], "run")
    assert {c.name for c in checkpoints.changes(ns, taken)} == {"g", "frames"}  # copies: not `is`


# -- names, aliases, what cannot be kept ------------------------------------------------------------


def test_a_name_the_run_created_is_deleted_and_a_deleted_name_comes_back():
    ns = {"x": [1]}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["x", "new"], "run")
    assert taken.values["new"] is not None and taken.names == ("x", "new")
    ns["new"] = 1
    del ns["x"]
    checkpoints.undo(ns)
    assert ns == {"x": [1]}


def test_aliases_are_checkpointed_and_restored_to_one_object():
    frame = penguins()
    shared = [1, 2]
    ns = {"a": shared, "b": shared, "df": frame, "same_df": frame, "other": [1, 2]}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, ["a", "df"], "run")
    assert set(taken.names) == {"a", "b", "df", "same_df"}
    assert set(taken.aliases) == {("a", "b"), ("df", "same_df")}
    ns["b"].append(3)
    frame.loc[0, "island"] = "Nowhere"
    ns["a"] = "rebound"
    checkpoints.undo(ns)
    assert ns["a"] == [1, 2] and ns["a"] is ns["b"] and ns["df"] is ns["same_df"]
    pd.testing.assert_frame_equal(ns["df"], penguins())
    assert ns["other"] == [1, 2]


def test_what_cannot_be_copied_is_reported_and_left_alone():
    lock = threading.Lock()
    stream = io.StringIO("text")
    generator = (i for i in range(3))
    ns = {"lock": lock, "stream": stream, "gen": generator, "np": np, "x": [1], "f": len}
    checkpoints = Checkpoints()
    taken = checkpoints.take(ns, list(ns), "run")
    assert set(taken.not_kept) == {"lock", "stream", "gen", "np"}
    assert "cannot" in taken.not_kept["np"]
    ns["x"].append(2)
    ns["lock"] = ns["np"] = ns["f"] = None
    assert {c.name for c in checkpoints.changes(ns, taken)} == {"x", "f"}
    checkpoints.undo(ns)
    assert ns["x"] == [1] and ns["f"] is len and ns["lock"] is None and ns["np"] is None


def test_a_value_deepcopy_refuses_is_reported():
    class Refuses:
        def __deepcopy__(self, memo):
            raise ValueError("not me")

    ns = {"r": Refuses()}
    taken = Checkpoints().take(ns, ["r"], "run")
    assert taken.not_kept == {"r": "ValueError: not me"}


def test_a_restored_copy_is_never_shared_with_a_later_checkpoint():
    ns = {"rows": [1]}
    checkpoints = Checkpoints()
    first = checkpoints.take(ns, ["rows"], "one")
    ns["rows"].append(2)
    checkpoints.undo(ns)
    assert first.values == {}
    checkpoints.take(ns, ["rows"], "two")
    ns["rows"].append(3)
    checkpoints.undo(ns)
    assert ns["rows"] == [1]


# -- history, ids, the budget -----------------------------------------------------------------------


def test_ids_count_up_and_undo_to_restores_every_step_back_to_it():
    ns = {"n": 0}
    checkpoints = Checkpoints()
    for step in range(4):
        taken = checkpoints.take(ns, ["n"], f"step {step}")
        assert taken.id == f"c{step + 1}" and taken.label == f"step {step}" and taken.created_at > 0
        ns["n"] += 1
    restored = checkpoints.undo(ns, to="c2")
    assert [c.id for c in restored] == ["c4", "c3", "c2"] and ns["n"] == 1
    assert [c.id for c in checkpoints.history] == ["c1"]
    assert checkpoints.take(ns, ["n"], "next").id == "c5"
    checkpoints.forget()
    assert checkpoints.history == [] and checkpoints.undo(ns) == [] and ns["n"] == 1


def test_an_unknown_id_is_a_clear_error_and_changes_nothing():
    ns = {"n": 0}
    checkpoints = Checkpoints()
    checkpoints.take(ns, ["n"], "run")
    ns["n"] = 1
    with pytest.raises(UnknownCheckpoint) as raised:
        checkpoints.undo(ns, to="c9")
    assert isinstance(raised.value, KeyError) and isinstance(raised.value, NotebookToolsError)
    assert str(raised.value) == "No checkpoint 'c9' to go back to. Checkpoints: c1."
    assert [c.id for c in checkpoints.history] == ["c1"] and ns["n"] == 1


def test_the_budget_lets_the_oldest_go_and_refuses_a_checkpoint_that_alone_is_over_it():
    ns = {"arr": np.zeros(1000)}  # 8,000 bytes
    checkpoints = Checkpoints(budget_bytes=20_000)
    assert checkpoints.estimate(ns, ["arr"]) >= 8_000
    ids = [checkpoints.take(ns, ["arr"], f"run {i}").id for i in range(4)]
    assert [c.id for c in checkpoints.history] == ids[2:]
    assert (checkpoints.dropped, checkpoints.dropped_ids) == (2, ids[:2])
    ns["big"] = np.zeros(10_000)
    with pytest.raises(CheckpointTooLarge) as raised:
        checkpoints.take(ns, ["big"], "too big")
    assert raised.value.size >= 80_000 and isinstance(raised.value, NotebookToolsError)
    assert [c.id for c in checkpoints.history] == ids[2:]
    with pytest.raises(UnknownCheckpoint, match="let go to stay within the undo budget"):
        checkpoints.undo(ns, to=ids[0])
    assert [c.id for c in checkpoints.history] == ids[2:]


def test_the_estimate_counts_frames_deeply_and_immutables_as_nothing():
    frame = penguins()
    checkpoints = Checkpoints()
    ns = {"df": frame, "alias": frame, "text": "x" * 10_000, "t": (1, "a"), "rows": [[0] * 100] * 3}
    assert checkpoints.estimate(ns, ["df"]) == frame.memory_usage(deep=True).sum()
    assert checkpoints.estimate(ns, ["text", "t", "missing"]) == 0
    assert 800 <= checkpoints.estimate(ns, ["rows"]) < 10_000  # the inner list is one object


def test_the_estimate_of_a_large_frame_samples_its_text_columns():
    frame = pd.DataFrame({"n": np.arange(300_000), "s": pd.Series(["word"] * 300_000, dtype=object)})
    deep = frame.memory_usage(deep=True).sum()
    estimate = Checkpoints().estimate({"df": frame}, ["df"])
    assert 0.9 * deep <= estimate <= 1.1 * deep


# -- the property -----------------------------------------------------------------------------------


def _step(names, run):
    return names, run


def _filter(ns, k):
    ns["df"] = ns["df"][ns["df"]["x"] > k % 5 - 2]


def _fill(ns, k):
    with inplace():
        ns["df"].fillna({"x": float(k)}, inplace=True)


def _loc(ns, k):
    df = ns["df"]
    df.loc[df.index[: k % 4], "y"] = -float(k)


def _drop(ns, k):
    if "y" in ns["df"].columns:
        with inplace():
            ns["df"].drop(columns=["y"], inplace=True)


def _sort(ns, k):
    with inplace():
        ns["df"].sort_values("x", ascending=bool(k % 2), inplace=True)


def _category(ns, k):
    ns["df"]["kind"] = ns["df"]["kind"].astype("category" if k % 2 else "object")


def _new_column(ns, k):
    ns["df"][f"c{k % 3}"] = ns["df"]["x"] * k


def _array_set(ns, k):
    arr = ns["arr"]
    if arr.size:
        arr[k % arr.size] = k


def _array_rebind(ns, k):
    ns["arr"] = ns["arr"] * 2.5 if k % 2 else ns["arr"][: k % 4]


def _append(ns, k):
    ns["rows"].append([k])


def _nested(ns, k):
    if ns["rows"]:
        ns["rows"][0].append(k) if isinstance(ns["rows"][0], list) else ns["rows"].pop()


def _dict_update(ns, k):
    ns["meta"].update({f"k{k % 3}": [k]})


def _new_name(ns, k):
    ns[f"made{k % 2}"] = ns["df"].head(k % 3)


def _delete(ns, k):
    ns.pop(f"made{k % 2}", None)


def _alias(ns, k):
    ns["alias"] = ns["rows"] if k % 2 else ns["df"]


def _through_alias(ns, k):
    alias = ns.get("alias")
    if isinstance(alias, list):
        alias.append(-k)
    elif isinstance(alias, pd.DataFrame) and len(alias):
        alias.loc[alias.index[0], "x"] = np.nan


def _count(ns, k):
    ns["n"] = ns["n"] + k


def _fails_midway(ns, k):
    ns["rows"].append("half")
    raise ValueError("the run failed after changing rows")


OPERATIONS = {
    "filter": (["df"], _filter),
    "fill": (["df"], _fill),
    "loc": (["df"], _loc),
    "drop": (["df"], _drop),
    "sort": (["df"], _sort),
    "category": (["df"], _category),
    "new column": (["df"], _new_column),
    "array set": (["arr"], _array_set),
    "array rebind": (["arr"], _array_rebind),
    "append": (["rows"], _append),
    "nested": (["rows"], _nested),
    "dict update": (["meta"], _dict_update),
    "new name": (["made0", "made1"], _new_name),
    "delete": (["made0", "made1"], _delete),
    "alias": (["alias"], _alias),
    "through alias": (["alias"], _through_alias),  # the aliased name comes with it
    "count": (["n"], _count),
    "fails midway": (["rows"], _fails_midway),
}


@st.composite
def namespaces(draw):
    size = draw(st.integers(0, 30))
    floats = st.floats(-10, 10, allow_nan=False) | st.just(float("nan"))
    x = draw(st.lists(floats, min_size=size, max_size=size))
    frame = pd.DataFrame(
        {
            "x": x,
            "y": np.arange(size, dtype="int64"),
            "kind": pd.Series(
                draw(st.lists(st.sampled_from("abc"), min_size=size, max_size=size)), dtype=object
            ),
        },
        index=pd.Index(draw(st.permutations(range(size))), dtype="int64", name="id"),
    )
    return {
        "df": frame,
        "arr": np.arange(draw(st.integers(0, 6)), dtype="int64"),
        "rows": [[1], [2]],
        "meta": {"x": [1]},
        "n": 0,
    }


def snapshot(ns):
    """A deep copy of the namespace, and its groups of names bound to one object."""
    by_id = {}
    for name, value in ns.items():
        if not isinstance(value, int | float | str | tuple):
            by_id.setdefault(id(value), set()).add(name)
    groups = {frozenset(g) for g in by_id.values() if len(g) > 1}
    return copy.deepcopy(ns), groups


def assert_same(ns, expected):
    values, groups = expected
    assert set(ns) == set(values)
    for name, value in values.items():
        now = ns[name]
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(now, value)
        elif isinstance(value, np.ndarray):
            assert now.dtype == value.dtype
            np.testing.assert_array_equal(now, value)
        else:
            assert now == value, name
    assert snapshot(ns)[1] == groups


@settings(max_examples=60, deadline=None)
@given(
    start=namespaces(),
    steps=st.lists(
        st.tuples(st.sampled_from(sorted(OPERATIONS)), st.integers(0, 9)), min_size=1, max_size=25
    ),
    data=st.data(),
)
def test_random_runs_undone_in_a_random_order_restore_every_variable(start, steps, data):
    ns = start
    checkpoints = Checkpoints()
    taken = []
    for operation, k in steps:
        names, run = OPERATIONS[operation]
        before = snapshot(ns)
        checkpoint = checkpoints.take(ns, names, operation)
        with contextlib.suppress(ValueError):  # a failed run keeps what it did: restored too
            run(ns, k)
        taken.append((checkpoint, before))
    while taken:
        if data.draw(st.booleans(), label="one step"):
            [restored] = checkpoints.undo(ns)
            checkpoint, before = taken.pop()
            assert restored is checkpoint
        else:
            index = data.draw(st.integers(0, len(taken) - 1), label="back to")
            restored = checkpoints.undo(ns, to=taken[index][0].id)
            assert restored == [c for c, _ in reversed(taken[index:])]
            before = taken[index][1]
            del taken[index:]
        assert_same(ns, before)
        assert [c.id for c in checkpoints.history] == [c.id for c, _ in taken]
    assert checkpoints.history == []


# -- the copies ---------------------------------------------------------------------------------------


def test_a_frame_is_copied_lazily_under_copy_on_write_and_kept_apart_from_writes():
    ns = {"df": penguins()}
    taken = Checkpoints().take(ns, ["df"], "run")
    kept = taken.values["df"]
    assert np.shares_memory(kept["bill_length_mm"].to_numpy(), ns["df"]["bill_length_mm"].to_numpy())
    ns["df"].loc[0, "bill_length_mm"] = -1.0
    assert kept.loc[0, "bill_length_mm"] == 39.1


@pytest.mark.parametrize("lazy", [True, False], ids=["copy-on-write", "deep copies"])
def test_series_index_and_frames_are_restored_with_or_without_copy_on_write(monkeypatch, lazy):
    monkeypatch.setattr("notebook_tools.kernel_tools._undo._lazy_copies", lambda: lazy)
    frame, series, index = penguins(), penguins()["body_mass_g"], pd.Index(["a", "b"], name="letters")
    ns = {"df": frame, "s": series, "idx": index}
    checkpoints = Checkpoints()
    checkpoints.take(ns, list(ns), "run")
    with inplace():
        frame.dropna(inplace=True)
    frame.columns.name = "fields"
    series.iloc[:3] = 0.0
    series.name = "mass"
    index.name = "renamed"
    checkpoints.undo(ns)
    pd.testing.assert_frame_equal(ns["df"], penguins())
    pd.testing.assert_series_equal(ns["s"], penguins()["body_mass_g"])
    pd.testing.assert_index_equal(ns["idx"], pd.Index(["a", "b"], name="letters"))
