"""`nt.memory_tool(directory)`: the API's memory tool, run here on files under one directory.

The model's paths are untrusted: each hostile one must be an error the model reads, leave the files
outside the directory untouched, and never raise into the kernel.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.tools import ToolError

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.tools._memory import MemoryFiles


@pytest.fixture
def place(tmp_path: Path) -> tuple[MemoryFiles, Path]:
    """The memory files under tmp/mem, and tmp/outside holding a secret file and a directory."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    return MemoryFiles(tmp_path / "mem"), outside


def run(files: MemoryFiles, **arguments: Any) -> str:
    return files.run(arguments)


def test_the_six_commands_on_files_under_the_directory(place: tuple[MemoryFiles, Path]) -> None:
    files, _ = place
    assert run(files, command="create", path="/memories/notes/pandas.md", file_text="a\nb\nc\n") == (
        "File created successfully at: /memories/notes/pandas.md"
    )
    stored = files.root / "notes" / "pandas.md"
    assert stored.read_text() == "a\nb\nc\n"
    assert oct(stored.stat().st_mode & 0o777) == "0o600"
    shown = run(files, command="view", path="/memories/notes/pandas.md", view_range=[2, 3])
    assert shown.splitlines() == [
        "Here's the content of /memories/notes/pandas.md with line numbers:",
        "     2\tb",
        "     3\tc",
    ]
    assert "     2\tB" in run(
        files, command="str_replace", path="/memories/notes/pandas.md", old_str="b", new_str="B"
    )
    assert run(files, command="insert", path="/memories/notes/pandas.md", insert_line=0, insert_text="top\n")
    assert stored.read_text() == "top\na\nB\nc\n"
    listing = run(files, command="view", path="/memories").splitlines()
    assert listing[0].startswith("Here're the files and directories up to 2 levels deep in /memories")
    assert [line.split("\t")[1] for line in listing[1:]] == [
        "/memories",
        "/memories/notes/",
        "/memories/notes/pandas.md",
    ]
    assert run(files, command="rename", old_path="/memories/notes", new_path="/memories/kept/notes") == (
        "Successfully renamed /memories/notes to /memories/kept/notes"
    )
    assert (files.root / "kept" / "notes" / "pandas.md").exists()
    assert run(files, command="delete", path="/memories/kept") == "Successfully deleted /memories/kept"
    assert list(files.root.iterdir()) == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"command": "create", "path": "/memories/a.md", "file_text": "again"}, "already exists"),
        ({"command": "view", "path": "/memories/none.md"}, "does not exist"),
        ({"command": "str_replace", "path": "/memories/a.md", "old_str": "zz", "new_str": "y"}, "verbatim"),
        ({"command": "str_replace", "path": "/memories/a.md", "old_str": "x", "new_str": "y"}, "2 times"),
        ({"command": "str_replace", "path": "/memories/a.md", "old_str": "", "new_str": "y"}, "empty"),
        ({"command": "insert", "path": "/memories/a.md", "insert_line": 9, "insert_text": "y"}, "range"),
        ({"command": "delete", "path": "/memories"}, "itself cannot be changed"),
        ({"command": "delete", "path": "/memories/"}, "itself cannot be changed"),
        ({"command": "rename", "old_path": "/memories", "new_path": "/memories/b"}, "itself"),
        ({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/d/e"}, "into itself"),
        ({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/a.md"}, "already exists"),
        ({"command": "view", "path": "/memories/d"}, None),
        ({"command": "format_disk"}, "Unknown command"),
        ({"path": "/memories/a.md"}, "Unknown command"),
        ({"command": "create", "path": "/memories/b.md"}, "file_text: Field required"),
        ({"command": "view", "path": 7}, "path: Input should be a valid string"),
    ],
)
def test_mistakes_are_errors_the_model_reads(
    place: tuple[MemoryFiles, Path], arguments: dict[str, Any], message: str | None
) -> None:
    files, _ = place
    run(files, command="create", path="/memories/a.md", file_text="x x\n")
    (files.root / "d").mkdir()
    if message is None:
        assert run(files, **arguments).splitlines()[1].endswith("/memories/d")
        return
    with pytest.raises(ToolError, match=message):
        run(files, **arguments)
    assert (files.root / "a.md").read_text() == "x x\n"


HOSTILE = [
    "/etc/passwd",
    "memories/a.md",
    "/memories/../outside/secret.txt",
    "/memories/../../etc/passwd",
    "/memories/a/../../outside/secret.txt",
    "/memories/./a.md",
    "/memoriesX/a.md",
    "/memories_evil",
    "//memories/a.md",
    "/memories/..",
    "/memories/a\\..\\..\\outside\\secret.txt",
    "/memories/a\x00.md",
    "~/.ssh/id_rsa",
    "",
    "/MEMORIES/a.md",
]


@pytest.mark.parametrize("path", HOSTILE)
@pytest.mark.parametrize("command", ["view", "create", "str_replace", "insert", "delete", "rename"])
def test_hostile_paths_are_refused_and_nothing_outside_changes(
    place: tuple[MemoryFiles, Path], path: str, command: str
) -> None:
    files, outside = place
    arguments: dict[str, Any] = {
        "view": {"path": path},
        "create": {"path": path, "file_text": "PWNED"},
        "str_replace": {"path": path, "old_str": "TOP", "new_str": "PWNED"},
        "insert": {"path": path, "insert_line": 0, "insert_text": "PWNED"},
        "delete": {"path": path},
        "rename": {"old_path": path, "new_path": "/memories/stolen.txt"},
    }[command]
    with pytest.raises(ToolError) as refused:
        run(files, command=command, **arguments)
    assert "TOP SECRET" not in str(refused.value) and str(files.root) not in str(refused.value)
    assert (outside / "secret.txt").read_text() == "TOP SECRET\n"
    assert sorted(p.name for p in outside.parent.iterdir()) == ["mem", "outside"]
    assert list(files.root.iterdir()) == []


def test_symlinks_that_lead_out_are_refused(place: tuple[MemoryFiles, Path]) -> None:
    files, outside = place
    (files.root / "out").symlink_to(outside, target_is_directory=True)
    (files.root / "leak.txt").symlink_to(outside / "secret.txt")
    (files.root / "gone").symlink_to(outside / "not-yet.txt")  # dangling: create would write outside
    attempts = [
        {"command": "view", "path": "/memories/leak.txt"},
        {"command": "view", "path": "/memories/out"},
        {"command": "view", "path": "/memories/out/secret.txt"},
        {"command": "create", "path": "/memories/out/new.txt", "file_text": "PWNED"},
        {"command": "create", "path": "/memories/gone", "file_text": "PWNED"},
        {"command": "str_replace", "path": "/memories/leak.txt", "old_str": "TOP", "new_str": "PWNED"},
        {"command": "insert", "path": "/memories/out/secret.txt", "insert_line": 0, "insert_text": "x"},
        {"command": "delete", "path": "/memories/out/secret.txt"},
        {"command": "rename", "old_path": "/memories/out/secret.txt", "new_path": "/memories/mine.txt"},
        {"command": "rename", "old_path": "/memories/leak.txt", "new_path": "/memories/out/x.txt"},
    ]
    for arguments in attempts:
        with pytest.raises(ToolError, match="outside /memories"):
            files.run(arguments)
    assert (outside / "secret.txt").read_text() == "TOP SECRET\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    listing = run(files, command="view", path="/memories")
    assert "secret" not in listing and "out" not in listing.split("\n", 1)[1]


def test_a_symlink_loop_is_an_error_that_names_no_local_path(place: tuple[MemoryFiles, Path]) -> None:
    files, _ = place
    (files.root / "a").symlink_to(files.root / "b")
    (files.root / "b").symlink_to(files.root / "a")
    with pytest.raises(ToolError, match="symlink loop") as refused:
        run(files, command="view", path="/memories/a")
    assert str(files.root) not in str(refused.value)
    assert run(files, command="view", path="/memories").count("\t") == 1  # the loop is not listed
    run(files, command="create", path="/memories/c.md", file_text="c\n")
    with pytest.raises(ToolError, match="two line numbers"):
        run(files, command="view", path="/memories/c.md", view_range=[1, 2, 3])


def test_a_symlink_inside_the_directory_is_followed(place: tuple[MemoryFiles, Path]) -> None:
    files, _ = place
    run(files, command="create", path="/memories/real/a.md", file_text="inside\n")
    (files.root / "alias").symlink_to(files.root / "real", target_is_directory=True)
    assert "inside" in run(files, command="view", path="/memories/alias/a.md")


def test_files_that_are_not_text_or_not_regular_are_errors(place: tuple[MemoryFiles, Path]) -> None:
    files, _ = place
    (files.root / "blob.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ToolError, match="not UTF-8"):
        run(files, command="view", path="/memories/blob.bin")
    os.mkfifo(files.root / "pipe")
    with pytest.raises(ToolError, match="not a file"):
        run(files, command="view", path="/memories/pipe")  # a FIFO would block a read forever


def test_the_request_carries_the_api_param_and_the_agent_runs_the_calls(tmp_path: Path) -> None:
    memory = nt.memory_tool(tmp_path / "notes")
    assert memory.to_dict() == {"type": "memory_20250818", "name": "memory"}
    assert memory.metadata()["description"].startswith("Claude's memory")  # the UI still has its text
    script = t.ScriptedTransport(
        t.turn(t.tool_use("memory", {"command": "view", "path": "/memories"})),
        t.turn(
            t.tool_use(
                "memory", {"command": "create", "path": "/memories/style.md", "file_text": "Use polars.\n"}
            ),
            t.tool_use("memory", {"command": "view", "path": "/memories/../../etc/passwd"}),
        ),
        t.reply("Noted."),
    )
    agent = nt.Agent(client=script.client(max_retries=0), tools=[memory])
    result = asyncio.run(agent.run("Remember that I prefer polars."))
    assert result.stop_reason == "end_turn" and script.refused == []
    assert script.requests[0]["tools"] == [
        {"type": "memory_20250818", "name": "memory", "cache_control": {"type": "ephemeral"}}
    ]
    assert (tmp_path / "notes" / "style.md").read_text() == "Use polars.\n"
    answers = [b for b in script.requests[2]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert answers[0].get("is_error") is not True and "created successfully" in str(answers[0]["content"])
    assert answers[1]["is_error"] is True and "'.' or '..'" in str(answers[1]["content"])


def test_api_definition_must_name_the_tool_it_defines() -> None:
    def memory(**arguments: Any) -> str:
        return ""

    with pytest.raises(nt.ToolDefinitionError, match="api_definition"):
        nt.Tool(memory, api_definition={"type": "memory_20250818", "name": "notes"})
    with pytest.raises(nt.ToolDefinitionError, match="api_definition"):
        nt.Tool(memory, api_definition={"type": "custom", "name": "memory"})
    plain = nt.Tool(memory, description="d")
    assert plain.to_dict() == {"name": "memory", "description": "d", "input_schema": plain.input_schema}


def test_create_refuses_a_directory_path_and_a_file_too_big_to_read_back(
    place: tuple[MemoryFiles, Path],
) -> None:
    files, _ = place
    with pytest.raises(ToolError, match="names a directory"):
        run(files, command="create", path="/memories/sub/", file_text="x")
    assert not (files.root / "sub").exists()
    with pytest.raises(ToolError, match="larger than"):
        run(files, command="create", path="/memories/big.txt", file_text="x" * 2_000_001)
    assert not (files.root / "big.txt").exists()
