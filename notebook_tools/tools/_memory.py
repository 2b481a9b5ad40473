"""Claude's memory tool, run here on files under one directory.

    agent = nt.Agent(tools=[nt.memory_tool("notes/")])

The API defines the tool (`{"type": "memory_20250818", "name": "memory"}`: Claude knows its commands
and checks `/memories` before a task) but the client runs it. The model's paths are untrusted: only
`/memories` and below, resolved inside the directory, no `.` or `..` part, no symlink that leads out;
a bad path or command is an error result the model reads, never an exception in the kernel.
Commands and their texts follow the SDK's `BetaAbstractMemoryTool` and its command types.
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from pathlib import Path
from typing import Any, cast

import pydantic
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ._tool import ApprovalRule, Tool

__all__ = ["MemoryFiles", "memory_tool"]

ROOT = "/memories"
MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}
"""The tool param a request carries (the API's own definition: no description or schema of ours)."""
_COMMANDS: dict[str, type[pydantic.BaseModel]] = {
    "view": BetaMemoryTool20250818ViewCommand,
    "create": BetaMemoryTool20250818CreateCommand,
    "str_replace": BetaMemoryTool20250818StrReplaceCommand,
    "insert": BetaMemoryTool20250818InsertCommand,
    "delete": BetaMemoryTool20250818DeleteCommand,
    "rename": BetaMemoryTool20250818RenameCommand,
}
_TEXT = {"type": "string"}
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "enum": list(_COMMANDS)},
        "path": _TEXT,
        "view_range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "file_text": _TEXT,
        "old_str": _TEXT,
        "new_str": _TEXT,
        "insert_line": {"type": "integer", "minimum": 0},
        "insert_text": _TEXT,
        "old_path": _TEXT,
        "new_path": _TEXT,
    },
    "required": ["command"],
}
_WIDTH = 6  # line numbers as the SDK shows them
_MAX_BYTES = 2_000_000
_FILE_MODE, _DIR_MODE = 0o600, 0o700


class MemoryFiles(BetaAbstractMemoryTool):
    """The memory commands on the files under `directory` (the model's `/memories`)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        super().__init__()
        Path(directory).mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        self.root = Path(directory).resolve(strict=True)

    def run(self, arguments: dict[str, Any]) -> str:
        """Run one call's arguments; a bad command or path raises `ToolError` (the model reads it)."""
        kind = arguments.get("command")
        model = _COMMANDS.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise ToolError(f"Unknown command {kind!r}; the commands are {', '.join(_COMMANDS)}")
        try:
            command = model.model_validate(arguments)
        except pydantic.ValidationError as exc:
            details = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ToolError(f"Invalid {kind} command: {details}") from None
        try:
            return str(self.execute(cast(Any, command)))
        except OSError as exc:  # the file system's answer, without this machine's paths
            raise ToolError(f"The {kind} command failed: {exc.strerror or type(exc).__name__}") from None

    # -- paths ---------------------------------------------------------------------------------

    def resolve(self, path: object) -> Path:
        """The file a model's path names, inside the directory; `ToolError` for any other path."""
        if not isinstance(path, str) or not (path == ROOT or path.startswith(ROOT + "/")):
            raise ToolError(f"Paths must start with {ROOT}/, got: {path!r}")
        if "\x00" in path or "\\" in path:
            raise ToolError(f"The path {path!r} has a character paths here may not have (NUL or \\)")
        parts = [p for p in path[len(ROOT) :].split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise ToolError(f"The path {path!r} has a '.' or '..' part; give it from {ROOT} down")
        try:
            resolved = self.root.joinpath(*parts).resolve()  # follows symlinks as far as they exist
        except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
            raise ToolError(f"The path {path!r} cannot be resolved (a symlink loop?)") from None
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolError(f"The path {path!r} leads outside {ROOT} (through a symlink)")
        return resolved

    def _inner(self, path: str) -> Path:
        target = self.resolve(path)
        if target == self.root:
            raise ToolError(f"{ROOT} itself cannot be changed; name a file or directory in it")
        return target

    def _read(self, path: str) -> tuple[Path, str]:
        target = self.resolve(path)
        kind = _kind(target)
        if kind is None:
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        if kind != "file":
            raise ToolError(f"The path {path} is not a file.")
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
        if len(data) > _MAX_BYTES:
            raise ToolError(f"The file {path} is larger than {_MAX_BYTES:,} bytes")
        try:
            return target, data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolError(f"The file {path} is not UTF-8 text") from None

    # -- the commands --------------------------------------------------------------------------

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        target = self.resolve(command.path)
        if _kind(target) == "dir":
            lines = [f"{_size(target)}\t{command.path.rstrip('/') or ROOT}"]
            lines += [f"{size}\t{ROOT}/{name}" for name, size in self._listing(target)]
            header = "Here're the files and directories up to 2 levels deep in"
            return "\n".join([f"{header} {command.path}, excluding hidden items:", *lines])
        _, text = self._read(command.path)
        lines = text.split("\n")
        start = 1
        if command.view_range:
            if len(command.view_range) != 2:
                raise ToolError("view_range takes two line numbers: [first, last] (last -1: to the end)")
            first, last = command.view_range
            start = max(1, first)
            lines = lines[start - 1 : None if last == -1 else last]
        numbered = [f"{str(n).rjust(_WIDTH)}\t{line}" for n, line in enumerate(lines, start)]
        return "\n".join([f"Here's the content of {command.path} with line numbers:", *numbered])

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        if command.path.endswith("/"):
            raise ToolError(f"{command.path} names a directory; create takes a file path")
        target = self._inner(command.path)
        if _kind(target) is not None:
            raise ToolError(f"File {command.path} already exists")
        target.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        _write(target, command.file_text)
        return f"File created successfully at: {command.path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        target, text = self._read(command.path)
        if not command.old_str:
            raise ToolError("No replacement was performed: old_str is empty")
        count = text.count(command.old_str)
        if count != 1:
            raise ToolError(
                f"No replacement was performed, old_str `{command.old_str}` did not appear verbatim in "
                f"{command.path}."
                if count == 0
                else f"No replacement was performed. old_str `{command.old_str}` appears {count} times in "
                f"{command.path}; make it unique."
            )
        line = text[: text.find(command.old_str)].count("\n")
        edited = text.replace(command.old_str, command.new_str)
        _write(target, edited)
        lines = edited.split("\n")
        shown = range(max(0, line - 2), min(len(lines), line + 3))
        snippet = [f"{str(n + 1).rjust(_WIDTH)}\t{lines[n]}" for n in shown]
        head = "The memory file has been edited. Here is the snippet showing the change:"
        return "\n".join([head, *snippet])

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        target, text = self._read(command.path)
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not 0 <= command.insert_line <= len(lines):
            raise ToolError(
                f"Invalid `insert_line` parameter: {command.insert_line}. "
                f"It should be within the range [0, {len(lines)}]."
            )
        lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
        _write(target, "\n".join(lines) + "\n")
        return f"The file {command.path} has been edited."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        target = self._inner(command.path)
        kind = _kind(target)
        if kind is None:
            raise ToolError(f"The path {command.path} does not exist")
        if kind == "dir":
            shutil.rmtree(target)
        else:
            target.unlink()
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        source, target = self._inner(command.old_path), self._inner(command.new_path)
        if _kind(source) is None:
            raise ToolError(f"The path {command.old_path} does not exist")
        if _kind(target) is not None:
            raise ToolError(f"The destination {command.new_path} already exists")
        if source in target.parents:
            raise ToolError(f"{command.old_path} cannot be moved into itself")
        target.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
        source.rename(target)
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def clear_all_memory(self) -> str:
        """Delete every file and directory under the directory (it stays)."""
        for item in self.root.iterdir():
            if _kind(item) == "dir":
                shutil.rmtree(item)
            else:
                item.unlink()
        return "All memory cleared"

    # -- helpers -------------------------------------------------------------------------------

    def _listing(self, directory: Path, depth: int = 1) -> list[tuple[str, str]]:
        """(name in /memories, size) of what is up to 2 levels down; hidden items and links out left out."""
        found: list[tuple[str, str]] = []
        for item in sorted(directory.iterdir(), key=lambda p: p.name):
            try:
                resolved = item.resolve()
            except (OSError, RuntimeError):  # a symlink loop: not listed
                continue
            kind = _kind(resolved)
            if item.name.startswith(".") or kind not in ("file", "dir") or self.root not in resolved.parents:
                continue
            name = item.relative_to(self.root).as_posix()
            found.append((name + "/" if kind == "dir" else name, _size(resolved)))
            if depth < 2 and kind == "dir":
                found += self._listing(item, depth + 1)
        return found


def _kind(path: Path) -> str | None:
    """What is at `path`: "file", "dir", "other" (a FIFO, a device, a link) or None (nothing)."""
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def _size(path: Path) -> str:
    size, units = float(path.stat().st_size), ["B", "K", "M", "G"]
    while size >= 1024 and len(units) > 1:
        size, units = size / 1024, units[1:]
    unit = units[0]
    return f"{int(size)}{unit}" if size == int(size) else f"{size:.1f}{unit}"


def _write(target: Path, text: str) -> None:
    """Write `text` whole or not at all (a temporary file beside it, then replaced), owner-only.

    No larger than a view can read back.
    """
    if len(data := text.encode("utf-8")) > _MAX_BYTES:
        raise ToolError(f"The file would be larger than {_MAX_BYTES:,} bytes; keep memories short")
    temporary = target.with_name(f".tmp-{uuid.uuid4().hex}")
    fd = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, _FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def memory_tool(
    directory: str | os.PathLike[str], *, needs_approval: ApprovalRule = False, description: str | None = None
) -> Tool:
    """Claude's memory tool (the API's `memory_20250818`), its files kept under `directory`.

    Claude views, creates, edits, renames and deletes files it sees as `/memories/...`; they live in
    `directory` (created if missing), so what it wrote survives the session and the kernel.

    Args:
        directory: Where the memory files live.
        needs_approval: Ask a person before each call (True), or a function of the call's arguments.
        description: What a person is shown for the tool (the model reads the API's own definition).
    """
    files = MemoryFiles(directory)

    def memory(**arguments: Any) -> str:
        return files.run(arguments)

    about = description or f"Claude's memory: files it keeps as /memories, stored in {files.root.name}/"
    return Tool(
        memory,
        name="memory",
        description=about,
        input_schema=_SCHEMA,
        needs_approval=needs_approval,
        category="memory",
        api_definition=MEMORY_TOOL,
    )
