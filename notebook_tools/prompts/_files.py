"""Files for `pick_file`: chunked uploads with acks and a size cap, and picks confined to a root folder.

Upload bytes arrive as binary buffers of custom messages (never in a synced
trait, whose state is saved into the .ipynb), each at most 4 MiB and acked so
the browser never floods the comm. What the model receives is built here too:
text inline (truncated), images as image blocks, CSV/TSV as a preview plus the
saved path, anything else as metadata.
"""

from __future__ import annotations

import os
import re
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._exceptions import FileAccessError, FileNotChosenError
from ..tools._file_names import safe_name
from ._accept import accepts, media_type_of

__all__ = [
    "CHUNK_BYTES",
    "MAX_CHUNK_BYTES",
    "ChosenFiles",
    "FileAccessError",
    "FileInbox",
    "FileRecord",
]

MAX_CHUNK_BYTES = 4 * 1024 * 1024
CHUNK_BYTES = MAX_CHUNK_BYTES - 64 * 1024
"""What a view sends per chunk (js/src/prompts/upload.ts): room for the JSON header under 4 MiB."""
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
_UPLOAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _unsaveable(name: str, saved: str, accept: str) -> str:
    """Why an upload's name cannot be taken, in words.

    The browser let it through; the kernel's cleaning of names (no folder, no leading dot) turns it
    into one the prompt does not take, e.g. ".csv" into "csv".
    """
    shown = name if len(name) <= 80 else name[:79] + "…"
    stem, dot, ext = shown.strip().rpartition(".")
    if dot and not stem.strip(" ."):
        return f'"{shown}" has no name before its extension: rename it (say, data.{ext}) and upload it again.'
    return (
        f'"{shown}" would be saved as "{saved}", which this prompt does not take ({accept}); '
        "rename it and upload it again."
    )


@dataclass
class FileRecord:
    """A file the person chose, held by the kernel."""

    name: str
    path: str
    size: int
    media_type: str
    source: str  # "upload" | "workspace"

    def meta(self) -> dict[str, Any]:
        """Metadata the model receives."""
        return {"name": self.name, "path": self.path, "size": self.size, "media_type": self.media_type}


@dataclass
class _Upload:
    tool_use_id: str
    name: str
    size: int
    media_type: str
    received: int = 0
    part: Path | None = None
    next_seq: int = 0
    record: FileRecord | None = None


class ChosenFiles(Mapping[str, bytes]):
    """The files a person chose, by saved path; bytes are read from disk on access, never held.

    Two files with the same name (from different folders) are two entries. A bare file name
    also finds a file when exactly one has that name.
    """

    def __init__(self) -> None:
        self._paths: dict[str, Path] = {}

    def add(self, path: Path) -> None:
        """Remember a chosen file."""
        self._paths[str(path)] = path

    def _path(self, key: str) -> Path:
        if key in self._paths:
            return self._paths[key]
        named = [p for p in self._paths.values() if p.name == key]
        if len(named) == 1:
            return named[0]
        raise FileNotChosenError(
            key if not named else f"{key!r} names {len(named)} files; use the saved path"
        )

    def __getitem__(self, key: str) -> bytes:
        return self._path(key).read_bytes()

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


class FileInbox:
    """Receives uploads and resolves picks from the kernel's working directory."""

    def __init__(
        self,
        *,
        root: str | os.PathLike[str] | None = None,
        upload_dir: str | os.PathLike[str] | None = None,
        max_upload_bytes: int = MAX_UPLOAD_BYTES,
    ) -> None:
        self.root = Path(root if root is not None else os.getcwd()).resolve()
        self.upload_dir = Path(upload_dir) if upload_dir is not None else None
        self.max_upload_bytes = max_upload_bytes
        self.files = ChosenFiles()
        """Every file chosen or uploaded, by saved path; bytes are read from disk when asked for."""
        self._uploads: dict[str, _Upload] = {}
        self._staged: dict[str, list[FileRecord]] = {}

    # -- uploads ---------------------------------------------------------------------------

    def start(
        self, upload_id: str, tool_use_id: str, name: str, size: int, media_type: str = "", accept: str = ""
    ) -> None:
        """Open an upload.

        Refuses one over the size cap, or whose saved name `accept` would not take, before any byte is sent.
        """
        if not isinstance(size, int) or size < 0:
            raise FileAccessError("the upload size must be a non-negative integer")
        if size > self.max_upload_bytes:
            raise FileAccessError(
                f"{safe_name(name)} is {size:,} bytes; the limit is {self.max_upload_bytes:,} bytes"
            )
        if not _UPLOAD_ID.fullmatch(upload_id):
            raise FileAccessError("an upload id is 1 to 64 letters, digits, '_' or '-'")
        if upload_id in self._uploads:
            raise FileAccessError(f"upload {upload_id!r} was already started")
        upload = _Upload(tool_use_id, safe_name(name), size, media_type_of(name, media_type))
        if not accepts(accept, upload.name, upload.media_type):
            raise FileAccessError(_unsaveable(str(name), upload.name, accept))
        self._uploads[upload_id] = upload
        if size == 0:  # nothing will be sent
            self._complete(upload)

    def chunk(self, upload_id: str, seq: int, data: bytes) -> tuple[int, bool]:
        """Take one chunk; returns (bytes received, complete). A repeated chunk is ignored.

        Chunks go straight to a part file on disk, so a large upload never sits in memory twice.
        """
        upload = self._uploads.get(upload_id)
        if upload is None:
            raise FileAccessError(f"unknown upload {upload_id!r}")
        if len(data) > MAX_CHUNK_BYTES:
            self._discard(upload_id)
            raise FileAccessError(
                f"a chunk of {len(data):,} bytes is over the {MAX_CHUNK_BYTES:,}-byte limit"
            )
        if seq < upload.next_seq:
            return upload.received, upload.record is not None
        if seq != upload.next_seq:
            self._discard(upload_id)
            raise FileAccessError(f"chunk {seq} arrived before chunk {upload.next_seq}")
        if upload.received + len(data) > upload.size:
            self._discard(upload_id)  # refused mid-way: nothing of it stays on disk
            raise FileAccessError(
                f"upload {upload_id!r} sent more bytes than the {upload.size:,} it announced"
            )
        if upload.part is None:
            upload.part = self._folder() / f".{uuid.uuid4().hex}.part"  # never a name from the browser
            upload.part.write_bytes(b"")
        with upload.part.open("ab") as part:
            part.write(data)
        upload.received += len(data)
        upload.next_seq += 1
        if upload.received == upload.size:
            self._complete(upload)
        return upload.received, upload.record is not None

    def _folder(self) -> Path:
        if self.upload_dir is None:  # one private temporary folder per widget, made on first use
            self.upload_dir = Path(tempfile.mkdtemp(prefix="notebook_tools_uploads_"))
        self.upload_dir.mkdir(parents=True, exist_ok=True)
        return self.upload_dir

    def _discard(self, upload_id: str) -> None:
        upload = self._uploads.pop(upload_id)
        if upload.part is not None:
            upload.part.unlink(missing_ok=True)
        if upload.record is not None:
            Path(upload.record.path).unlink(missing_ok=True)

    def stage(self, tool_use_id: str, records: list[FileRecord]) -> None:
        """The files of an answer that passed its checks, held until the answer stands (`close`)."""
        self._staged[tool_use_id] = list(records)

    def close(self, tool_use_id: str, status: str) -> None:
        """A file prompt's answer was refused (`status` "pending"), or its prompt closed with `status`.

        "answered": the answer stands, and its files join `files`. The prompt's other uploads are
        deleted, never listed nor left on disk; while it is open, an upload still under way goes on.
        """
        staged = self._staged.pop(tool_use_id, []) if status == "answered" else []
        self._staged.pop(tool_use_id, None)
        for record in staged:
            self.files.add(Path(record.path))
        keep = {record.path for record in staged}
        for upload_id, upload in list(self._uploads.items()):
            if upload.tool_use_id != tool_use_id or (status == "pending" and upload.record is None):
                continue
            if upload.record is not None and upload.record.path in keep:
                del self._uploads[upload_id]  # the person's file now
            else:
                self._discard(upload_id)

    def _complete(self, upload: _Upload) -> None:
        """Save the finished upload under its name; it joins `files` once an answer with it stands."""
        folder = self._folder()
        target = folder / upload.name
        stem, suffix, n = target.stem, target.suffix, 1
        while target.exists():
            target = folder / f"{stem}-{n}{suffix}"
            n += 1
        if upload.part is None:  # an empty file
            target.write_bytes(b"")
        else:
            upload.part.replace(target)
        upload.record = FileRecord(target.name, str(target), upload.size, upload.media_type, "upload")

    def uploaded(self, upload_id: str, tool_use_id: str) -> FileRecord:
        """The finished upload, checked to belong to this prompt."""
        upload = self._uploads.get(upload_id)
        if upload is None or upload.tool_use_id != tool_use_id:
            raise FileAccessError(f"no upload {upload_id!r} for this prompt")
        if upload.record is None:
            raise FileAccessError(
                f"upload {upload_id!r} is incomplete ({upload.received:,} of {upload.size:,} bytes)"
            )
        return upload.record

    # -- the working directory -------------------------------------------------------------

    def resolve(self, relative: str) -> Path:
        """The real path of `relative` under the root; refuses `..` and symlinks that leave it."""
        if not isinstance(relative, str) or "\x00" in relative:
            raise FileAccessError("a path must be text")
        path = (self.root / relative).resolve()
        if path != self.root and self.root not in path.parents:
            raise FileAccessError(f"{relative!r} is outside the folder files may be chosen from")
        return path

    def listing(self, relative: str = "", accept: str = "") -> dict[str, Any]:
        """What the picker shows of a folder under the root: its path, folders, the files `accept` takes.

        Also counts what it leaves out, so an empty list says why: `other` files the filter
        refuses, and `hidden` files never offered (names starting with ".", links out of the root).
        """
        folder = self.resolve(relative)
        if not folder.is_dir():
            raise FileAccessError(f"{relative!r} is not a folder")
        entries: list[dict[str, Any]] = []
        other = hidden = 0
        for entry in sorted(folder.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())):
            if entry.name.startswith(".") or not entry.exists():  # hidden, or a symlink to nothing
                hidden += not entry.is_dir()  # files a person may look for (not .ipynb_checkpoints)
                continue
            try:
                self.resolve(str(entry.relative_to(self.root)))
            except FileAccessError:
                hidden += not entry.is_dir()
                continue  # a symlink pointing out of the root is not offered
            is_dir = entry.is_dir()
            media_type = "" if is_dir else media_type_of(entry.name)
            if not is_dir and not accepts(accept, entry.name, media_type):
                other += 1
                continue
            size = 0 if is_dir else entry.stat().st_size
            path = entry.relative_to(self.root).as_posix()
            entries.append(
                {"name": entry.name, "path": path, "is_dir": is_dir, "size": size, "media_type": media_type}
            )
        return {"folder": str(folder), "entries": entries, "other": other, "hidden": hidden}

    def list_dir(self, relative: str = "", accept: str = "") -> list[dict[str, Any]]:
        """Entries of a folder under the root (folders first, then the files `accept` takes), with sizes."""
        entries: list[dict[str, Any]] = self.listing(relative, accept)["entries"]
        return entries

    def workspace_file(self, relative: str) -> FileRecord:
        """A file chosen from the root folder."""
        path = self.resolve(relative)
        if not path.is_file():
            raise FileAccessError(f"{relative!r} is not a file")
        size = path.stat().st_size
        if size > self.max_upload_bytes:
            raise FileAccessError(
                f"{relative!r} is {size:,} bytes; the limit is {self.max_upload_bytes:,} bytes"
            )
        return FileRecord(path.name, str(path), size, media_type_of(path.name), "workspace")
