"""Undo after a kernel restart: checkpoints written to the session's folder, read back by a new kernel.

A restart here is what it is to the toolset: a brand-new `KernelTools` and `Agent` on the same
SQLite store and session id, over an empty namespace. The data is the real Palmer penguins table.
"""

import asyncio
import os
import pickle
import threading
import time
import uuid

import numpy as np
import palmerpenguins
import pandas as pd
import pytest

import notebook_tools as nt
from notebook_tools import testing as t


def penguins():
    return palmerpenguins.load_penguins()


def before_restart(tmp_path, namespace, *codes, **options):
    """A toolset on a SQLite session that runs each code (approval auto, policy allow); its files written."""
    steps = [
        t.turn(t.tool_use("run_code", {"code": c, "purpose": f"step {i}"}, id=f"r{i}"))
        for i, c in enumerate(codes, 1)
    ]
    script = t.ScriptedTransport(*steps, t.reply("done"))
    kernel = nt.KernelTools(
        namespace, approval="auto", policy="allow", checkpoint_dir=tmp_path / "cp", **options
    )
    agent = nt.Agent(
        client=script.client(), model="claude-test", plugins=[kernel], store=nt.SQLiteStore(tmp_path / "s.db")
    )
    asyncio.run(agent.run("go"))
    assert kernel.checkpoints.files.wait(30)
    return agent, kernel


def restart(tmp_path, agent_uuid, **options):
    """A new kernel: an empty namespace, a new toolset and agent taking up the same session."""
    namespace = {}
    kernel = nt.KernelTools(
        namespace, approval="auto", policy="allow", checkpoint_dir=tmp_path / "cp", **options
    )
    agent = nt.Agent(
        client=t.ScriptedTransport(t.reply("ok")).client(),
        model="claude-test",
        plugins=[kernel],
        store=nt.SQLiteStore(tmp_path / "s.db"),
    )
    agent.load(agent_uuid)
    return agent, kernel, namespace


def folder(tmp_path, agent):
    return tmp_path / "cp" / agent.agent_uuid


def pickles(tmp_path, agent):
    return sorted(p.name for p in folder(tmp_path, agent).iterdir())


def test_after_a_restart_the_undo_button_restores_a_frame_an_array_and_a_dict_from_disk(tmp_path):
    frame, array, mapping = penguins(), np.linspace(0.0, 1.0, 1_000), {"species": 3, "note": ["a", "b"]}
    ns = {"df": frame.copy(), "arr": array.copy(), "d": {"species": 3, "note": ["a", "b"]}}
    agent, _kernel = before_restart(
        tmp_path,
        ns,
        "df = df.dropna()\ndf['ratio'] = df.bill_length_mm / df.bill_depth_mm",
        "arr *= 2\nd['note'].append('c')\nd['new'] = 1",
    )
    assert len(ns["df"]) == 333 and ns["d"]["new"] == 1
    assert pickles(tmp_path, agent) == ["c1.pickle", "c2.pickle"]
    assert (folder(tmp_path, agent).stat().st_mode & 0o777) == 0o700
    kept = agent.state.plugin_data["kernel"]["checkpoints"]  # the index, kept with the session
    assert [(e["id"], e["file"], e["names"]) for e in kept] == [
        ("c1", "c1.pickle", ["df"]),
        ("c2", "c2.pickle", ["arr", "d"]),
    ]

    again, kernel2, ns2 = restart(tmp_path, agent.agent_uuid)
    assert [c.id for c in kernel2.checkpoints.history] == ["c1", "c2"]
    result = asyncio.run(again.run_manual("undo", {"to": "c1"}))  # what the Undo button sends
    assert not result.is_error, result.content
    text = str(result.content)
    assert "undid c2 (step 2) from disk, as it was kept before the kernel restarted: restored arr, d" in text
    assert "undid c1 (step 1) from disk" in text and "could not be restored" not in text
    pd.testing.assert_frame_equal(ns2["df"], frame)
    assert np.array_equal(ns2["arr"], array) and ns2["d"] == mapping
    assert kernel2.checkpoints.history == [] and pickles(tmp_path, agent) == []  # undone: files deleted
    assert again.state.plugin_data["kernel"]["checkpoints"] == []


def test_new_runs_after_a_restart_carry_on_the_ids_and_undo_mixes_memory_and_disk(tmp_path):
    ns = {"x": [1]}
    agent, _ = before_restart(tmp_path, ns, "x.append(2)")
    _again, kernel2, ns2 = restart(tmp_path, agent.agent_uuid)
    ns2["x"] = [1, 2]
    checkpoint = kernel2.checkpoints.take(ns2, ["x"], "by hand")
    assert checkpoint.id == "c2"  # never c1 again: c1.pickle is the earlier kernel's
    ns2["x"].append(3)
    text = kernel2.undo("c1")
    assert "undid c2 (by hand): restored x" in text and "undid c1 (step 1) from disk" in text
    assert ns2["x"] == [1]


def test_values_pickle_refuses_are_named_as_not_kept_and_left_as_they_are(tmp_path):
    ns = {"handlers": {"double": lambda v: 2 * v}, "lock": threading.Lock(), "n": 1}
    agent, kernel = before_restart(tmp_path, ns, "handlers['half'] = 0.5\nlock = None\nn = 2")
    [checkpoint] = kernel.checkpoints.history
    checkpoint.sync()
    assert checkpoint.not_kept == {"lock": "a lock cannot be copied"}  # not even copied in memory
    assert (
        list(checkpoint.not_on_disk) == ["handlers"]
        and "pickle refused it" in checkpoint.not_on_disk["handlers"]
    )
    _again, kernel2, ns2 = restart(tmp_path, agent.agent_uuid)
    ns2.update(handlers="after", lock=None, n=2)
    text = kernel2.undo()
    assert "restored n" in text and ns2["n"] == 1
    assert "handlers could not be restored: pickle refused it (" in text and "lambda" in text
    assert "lock could not be restored: a lock cannot be copied" in text
    assert ns2["handlers"] == "after" and ns2["lock"] is None  # left as they are


def test_a_deleted_or_damaged_file_refuses_the_undo_clearly_and_changes_nothing(tmp_path):
    ns = {"a": np.zeros(1_000), "b": np.ones(1_000)}
    agent, _ = before_restart(tmp_path, ns, "a += 1", "b += 1")
    again, kernel2, ns2 = restart(tmp_path, agent.agent_uuid)
    ns2.update(a="now", b="now")
    (folder(tmp_path, agent) / "c1.pickle").unlink()
    with pytest.raises(
        nt.ToolFailure,
        match=r"c1\.pickle is missing .* Nothing was undone; the history is unchanged\. Newer checkpoints "
        "can still be undone: c2",
    ):
        kernel2.undo("c1")
    data = bytearray((folder(tmp_path, agent) / "c2.pickle").read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte of the array flipped: it would load, wrongly
    (folder(tmp_path, agent) / "c2.pickle").write_bytes(bytes(data))
    result = asyncio.run(again.run_manual("undo", {}))  # the manual tool: an error result, not an exception
    assert result.is_error
    assert "Checkpoint c2 cannot be restored from disk: c2.pickle is damaged" in str(result.content)
    assert [c.id for c in kernel2.checkpoints.history] == ["c1", "c2"] and ns2 == {"a": "now", "b": "now"}

    (folder(tmp_path, agent) / "c2.pickle").write_bytes(bytes(data[: len(data) // 3]))  # cut short
    with pytest.raises(nt.ToolFailure, match=r"c2\.pickle is damaged"):
        kernel2.undo()
    (folder(tmp_path, agent) / "c2.pickle").write_bytes(b"")
    with pytest.raises(nt.ToolFailure, match=r"c2\.pickle is damaged"):
        kernel2.undo()
    assert [c.id for c in kernel2.checkpoints.history] == ["c1", "c2"] and ns2 == {"a": "now", "b": "now"}


def test_a_file_of_another_checkpoint_is_refused(tmp_path):
    ns = {"a": [0], "b": [0]}
    agent, _ = before_restart(tmp_path, ns, "a.append(1)", "b.append(1)")
    place = folder(tmp_path, agent)
    os.replace(place / "c1.pickle", place / "c2.pickle")  # c1's file where c2's should be
    _again, kernel2, ns2 = restart(tmp_path, agent.agent_uuid)
    with pytest.raises(nt.ToolFailure, match=r"c2\.pickle belongs to another checkpoint or session"):
        kernel2.undo()
    assert ns2 == {}


class FakeKept:
    """A session's kept data with any id at all (the agent's is always a uuid)."""

    def __init__(self, session):
        self.session = session
        self.data = {}

    def get(self, name):
        return self.data.get(name)

    def keep(self, name, data):
        self.data[name] = data

    def remembered_scopes(self, tool):
        return {}


@pytest.mark.parametrize(
    "session",
    [
        "../../escape",
        "/etc",
        "..",
        "",
        "C0FFEE00-0000-4000-8000-000000000000",
        "a/b",
        "3f2b8c1e-9d4a-4e7b-a1c2-5d6e7f8a9b0c/..",  # fixed: xdist workers must collect the same ids
    ],
)
def test_a_hostile_session_id_keeps_nothing_on_disk_and_writes_nowhere(tmp_path, session):
    root = tmp_path / "root" / "cp"
    kernel = nt.KernelTools({"x": [1]}, checkpoint_dir=root)
    kernel.bind(FakeKept(session))
    checkpoints = kernel.checkpoints
    assert "is not a UUID" in checkpoints.files.problem
    checkpoint = checkpoints.take(kernel.namespace, ["x"], "by hand")
    assert checkpoint.file is None and "is not a UUID" in checkpoint.file_problem
    assert [p for p in tmp_path.rglob("*")] == []  # not even the root was made
    kernel.namespace["x"].append(2)
    assert "restored x" in kernel.undo() and kernel.namespace["x"] == [1]  # memory still undoes


def test_a_symlinked_session_folder_is_neither_written_nor_read(tmp_path):
    session = str(uuid.uuid4())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    root = tmp_path / "cp"
    root.mkdir(mode=0o700)
    (root / session).symlink_to(elsewhere)
    kept = FakeKept(session)
    kernel = nt.KernelTools({"x": [1]}, checkpoint_dir=root)
    kernel.bind(kept)
    kernel.checkpoints.take(kernel.namespace, ["x"], "by hand")
    assert kernel.checkpoints.files.wait(10)
    [checkpoint] = kernel.checkpoints.history
    checkpoint.sync()
    assert "symlink" in checkpoint.file_problem and list(elsewhere.iterdir()) == []

    with open(elsewhere / "c1.pickle", "wb") as planted:  # someone else's file, through the link
        pickle.dump({"format": "notebook_tools checkpoint"}, planted)
    kernel._save()
    restarted = nt.KernelTools({}, checkpoint_dir=root)
    restarted.bind(kept)
    with pytest.raises(nt.ToolFailure, match="is a symlink: it is not followed"):
        restarted.undo()


def test_a_symlinked_file_or_a_folder_open_to_others_is_not_loaded(tmp_path):
    ns = {"x": [1]}
    agent, _ = before_restart(tmp_path, ns, "x.append(2)")
    place = folder(tmp_path, agent)
    outside = tmp_path / "outside.pickle"
    os.replace(place / "c1.pickle", outside)
    (place / "c1.pickle").symlink_to(outside)
    _again, kernel2, ns2 = restart(tmp_path, agent.agent_uuid)
    with pytest.raises(nt.ToolFailure, match=r"c1\.pickle cannot be opened"):
        kernel2.undo()
    (place / "c1.pickle").unlink()
    os.replace(outside, place / "c1.pickle")
    place.chmod(0o755)
    with pytest.raises(nt.ToolFailure, match="is not this user's with mode 0700"):
        kernel2.undo()
    place.chmod(0o700)
    assert "undid c1" in kernel2.undo() and ns2 == {"x": [1]}


def test_the_budget_deletes_the_files_of_checkpoints_let_go_and_forget_deletes_the_rest(tmp_path):
    ns = {f"a{i}": np.zeros(100_000) for i in range(4)}  # 800 KB each
    agent, kernel = before_restart(
        tmp_path, ns, "a0 += 1", "a1 += 1", "a2 += 1", "a3 += 1", checkpoint_budget=2_000_000
    )
    assert [c.id for c in kernel.checkpoints.history] == ["c3", "c4"] and kernel.checkpoints.dropped_ids == [
        "c1",
        "c2",
    ]
    assert pickles(tmp_path, agent) == ["c3.pickle", "c4.pickle"]
    assert all(abs(e["file_bytes"] - 800_000) < 2_000 for e in kernel.checkpoints.index())
    kernel.checkpoints.forget()
    assert pickles(tmp_path, agent) == []


class SlowToPickle:
    """A value whose pickling waits for a signal (copying it does not)."""

    release = threading.Event()

    def __deepcopy__(self, memo):
        return SlowToPickle()

    def __reduce__(self):
        assert SlowToPickle.release.wait(10)
        return (SlowToPickle, ())


def test_a_checkpoint_is_written_while_the_run_goes_on_and_an_undo_meanwhile_deletes_its_file(tmp_path):
    session = str(uuid.uuid4())
    kernel = nt.KernelTools({"slow": SlowToPickle(), "df": penguins()}, checkpoint_dir=tmp_path)
    kernel.bind(FakeKept(session))
    checkpoint = kernel.checkpoints.take(
        kernel.namespace, ["slow", "df"], "by hand"
    )  # (a wait would hang here)
    assert checkpoint.file == "c1.pickle"
    assert not kernel.checkpoints.files.wait(0.2)  # still writing: take did not wait for it
    kernel.undo()
    SlowToPickle.release.set()
    assert kernel.checkpoints.files.wait(10)
    assert sorted(p.name for p in (tmp_path / session).iterdir()) == []


def test_nothing_is_written_for_a_session_in_memory_or_with_checkpoint_dir_false(tmp_path):
    for options in ({}, {"checkpoint_dir": tmp_path / "cp"}):
        kernel = nt.KernelTools({"x": [1]}, **options)
        nt.Agent(
            client=t.ScriptedTransport().client(), model="claude-test", plugins=[kernel]
        )  # InMemoryStore
        assert kernel.checkpoints.files is None
    kernel = nt.KernelTools({"x": [1]}, checkpoint_dir=False)
    nt.Agent(
        client=t.ScriptedTransport().client(),
        model="claude-test",
        plugins=[kernel],
        store=nt.SQLiteStore(tmp_path / "s.db"),
    )
    kernel.checkpoints.take(kernel.namespace, ["x"], "by hand")
    assert kernel.checkpoints.files is None and kernel.checkpoints.history[0].file is None
    assert not (tmp_path / "cp").exists() and not list(tmp_path.rglob("*.pickle"))
    with pytest.raises(nt.ConfigurationError, match="checkpoint_dir must be a folder"):
        nt.KernelTools(checkpoint_dir=True)


def test_the_default_folder_is_under_the_users_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("NOTEBOOK_TOOLS_CHECKPOINT_DIR")  # set by conftest: tests keep out of the real cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    kernel = nt.KernelTools({"x": [1]})
    kernel.bind(FakeKept(str(uuid.uuid4())))
    kernel.checkpoints.take(kernel.namespace, ["x"], "by hand")
    assert kernel.checkpoints.files.wait(10)
    place = tmp_path / "cache" / "notebook_tools" / "checkpoints" / kernel._kept.session
    assert sorted(p.name for p in place.iterdir()) == ["c1.pickle"]
    assert (place.stat().st_mode & 0o777) == 0o700 and (place / "c1.pickle").stat().st_mode & 0o777 == 0o600
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    kernel = nt.KernelTools({"x": [1]})
    kernel.bind(FakeKept(str(uuid.uuid4())))
    assert str(kernel.checkpoints.files.folder).startswith(
        str(tmp_path / "home" / ".cache" / "notebook_tools")
    )


def test_the_writing_thread_ends_when_idle_and_the_next_checkpoint_starts_another(tmp_path, monkeypatch):
    from notebook_tools.kernel_tools import _checkpoint_files

    monkeypatch.setattr(_checkpoint_files, "_IDLE", 0.1)
    kernel = nt.KernelTools({"x": [1]}, checkpoint_dir=tmp_path)
    kernel.bind(FakeKept(str(uuid.uuid4())))
    files = kernel.checkpoints.files
    kernel.checkpoints.take(kernel.namespace, ["x"], "one")
    assert files.wait(10)
    deadline = time.monotonic() + 10
    while files._thread is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert files._thread is None  # a session switch leaves no thread behind for ever
    kernel.checkpoints.take(kernel.namespace, ["x"], "two")
    assert files.wait(10) and sorted(files.written) == ["c1", "c2"]


def test_notebook_tools_checkpoint_dir_moves_the_default_root(tmp_path, monkeypatch):
    monkeypatch.setenv("NOTEBOOK_TOOLS_CHECKPOINT_DIR", str(tmp_path / "elsewhere"))
    kernel = nt.KernelTools({"x": [1]})
    kernel.bind(FakeKept(str(uuid.uuid4())))
    assert kernel.checkpoints.files.folder == tmp_path / "elsewhere" / kernel._kept.session
