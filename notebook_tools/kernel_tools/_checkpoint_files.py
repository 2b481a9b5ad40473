"""Checkpoint copies kept on disk, so the undo history outlives a kernel restart.

A checkpoint's copies are pickled into one file of the session's folder on a thread of their own
(the run is not delayed: the copies are already independent of the live objects). Where:
`$XDG_CACHE_HOME` (or `~/.cache`)`/notebook_tools/checkpoints/<session id>/`, or under the root
given as `KernelTools(checkpoint_dir=...)` or `$NOTEBOOK_TOOLS_CHECKPOINT_DIR`. The session id must
be a UUID in its canonical form (the agent's uuid) before it becomes a folder name; file names are
the checkpoint ids this module is given ("c3.pickle"), never a variable's name.

A file is a sequence of framed pickles: a header (format, session, checkpoint id, names that were
absent), two frames per object (the names bound to it, then the value), and a trailer (what pickle
refused, and why). Each frame is its length, the pickle, and a BLAKE2b digest of it, so a damaged
file is found out rather than restored wrongly, and a record that pickle cannot read back in the new
kernel (a class no longer defined) costs only its own names. A file is written as `c3.pickle.part`
and renamed when complete.

Loading a pickle runs code: files are read only from a folder that is not a symlink, is owned by
the current user and has mode 0700, and only as regular files owned by the user, opened without
following a symlink (`O_NOFOLLOW`, relative to the folder's descriptor). Anyone who can write as
the user can already run code as the user; anyone else cannot place a file there. On a platform
without `O_NOFOLLOW` and `dir_fd` (Windows) nothing is kept on disk.

Not here: sessions that are never taken up again leave their folders behind (nothing sweeps the
cache); the files are not fsynced (a kernel restart does not lose the page cache; a machine crash
may).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import pickle
import queue
import re
import stat
import struct
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .._exceptions import CheckpointFileError

__all__ = ["CheckpointFiles", "Written", "default_root"]

_FORMAT = "notebook_tools checkpoint"
_VERSION = 1
_ID = re.compile(r"c[0-9]{1,12}")
_LENGTH = struct.Struct(">Q")
_DIGEST = 16
_Job = tuple[str, list[tuple[tuple[str, ...], Any]], tuple[str, ...]]
"""A checkpoint's id, (names, copy) per object, and the absent names."""
_IDLE = 30.0
"""Seconds the writing thread waits for work before it ends (the next write starts another)."""
_SUPPORTED = hasattr(os, "O_NOFOLLOW") and os.open in os.supports_dir_fd and os.unlink in os.supports_dir_fd


def default_root() -> Path:
    """Where sessions' folders go by default.

    `$NOTEBOOK_TOOLS_CHECKPOINT_DIR`, or `$XDG_CACHE_HOME/notebook_tools/checkpoints`, or the same
    under `~/.cache` (an environment variable counts only when it is an absolute path).
    """
    own = os.environ.get("NOTEBOOK_TOOLS_CHECKPOINT_DIR", "")
    if own and os.path.isabs(own):
        return Path(own)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "notebook_tools" / "checkpoints"


def folder_name(session: str) -> str | None:
    """The session id as a folder name: a UUID in canonical form, or None (it is not one)."""
    try:
        canonical = str(uuid.UUID(session))
    except (ValueError, TypeError, AttributeError):
        return None
    return canonical if canonical == session else None


def file_name(checkpoint_id: str) -> str | None:
    """The file of a checkpoint id we generate ("c3" -> "c3.pickle"); None for anything else."""
    ours = isinstance(checkpoint_id, str) and _ID.fullmatch(checkpoint_id)
    return f"{checkpoint_id}.pickle" if ours else None


@dataclass(frozen=True)
class Written:
    """How a checkpoint's file was written."""

    bytes: int
    """The file's size."""
    unpicklable: dict[str, str] = field(default_factory=dict)
    """Names pickle refused, and why: the file does not hold them."""
    seconds: float = 0.0
    """From the start of the write to the rename."""


@dataclass
class Restored:
    """What a checkpoint's file gave back."""

    values: dict[str, Any]
    """name -> value (names of one object share it)."""
    absent: tuple[str, ...]
    """Names that did not exist when the checkpoint was taken."""
    not_restored: dict[str, str]
    """Names the file does not hold or could not give back, and why."""


class CheckpointFiles:
    """One session's folder of checkpoint files: written on a thread of their own, read back, deleted.

    Args:
        root: The folder that holds one folder per session.
        session: The session's id (the agent's uuid, canonical form).
    """

    def __init__(self, root: str | os.PathLike[str], session: str) -> None:
        name = folder_name(session)
        self.session = session
        self.folder = Path(root) / (name or "invalid")
        self.problem: str | None = None
        """Why nothing is kept on disk for this session (None: files are written)."""
        if not _SUPPORTED:
            self.problem = "this platform cannot open files without following symlinks"
        elif name is None:
            self.problem = f"the session id {session[:60]!r} is not a UUID, so it names no folder"
        self.written: dict[str, Written | str] = {}
        """checkpoint id -> how its file was written, or why it was not."""
        self._lock = threading.Lock()
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._pending: set[str] = set()
        self._cancelled: set[str] = set()
        self._idle = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    # -- writing -----------------------------------------------------------------------------------

    def write(
        self, checkpoint_id: str, objects: Sequence[tuple[tuple[str, ...], Any]], absent: Sequence[str]
    ) -> str | None:
        """Queue a checkpoint's file; returns its name (None: nothing is kept on disk).

        Args:
            checkpoint_id: An id the history generated ("c3").
            objects: (the names bound to one object, the copy), one per object.
            absent: Names that did not exist when it was taken.
        """
        name = file_name(checkpoint_id)
        if self.problem is not None or name is None:
            return None
        with self._lock:
            self._pending.add(checkpoint_id)
            self._cancelled.discard(checkpoint_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="nt-checkpoint-files", daemon=True)
                self._thread.start()
        self._jobs.put((checkpoint_id, list(objects), tuple(absent)))
        return name

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every queued file is written; False when `timeout` seconds passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._idle:
            while self._pending:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def delete(self, checkpoint_ids: Sequence[str]) -> None:
        """Delete these checkpoints' files (one still being written is deleted when it is done)."""
        with self._lock:
            self._cancelled |= {c for c in checkpoint_ids if c in self._pending}
        self._unlink(checkpoint_ids)

    def _unlink(self, checkpoint_ids: Sequence[str]) -> None:
        if self.problem is not None:
            return
        try:
            with self._folder(create=False) as folder:
                for checkpoint_id in checkpoint_ids:
                    name = file_name(checkpoint_id)
                    if name is not None:
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(name, dir_fd=folder)
                    self.written.pop(checkpoint_id, None)
        except (OSError, CheckpointFileError):
            pass  # no folder (nothing was written), or not ours: nothing of ours to delete

    def _work(self) -> None:
        while True:
            try:
                checkpoint_id, objects, absent = self._jobs.get(timeout=_IDLE)
            except queue.Empty:
                with self._lock:
                    if not self._pending:  # `write` adds to it before it looks for this thread
                        self._thread = None
                        return
                continue
            try:
                with self._lock:
                    cancelled = checkpoint_id in self._cancelled
                if not cancelled:
                    self.written[checkpoint_id] = self._write(checkpoint_id, objects, absent)
            except Exception as exc:  # a full disk, a folder that is not ours: the history says why
                self.written[checkpoint_id] = f"{type(exc).__name__}: {exc}"[:300]
            finally:
                objects = []  # the copies are not held longer than the write
                with self._lock:
                    cancelled = checkpoint_id in self._cancelled
                if cancelled:  # let go or undone while it was written: deleted before `wait` returns
                    self._unlink([checkpoint_id])
                with self._idle:
                    self._pending.discard(checkpoint_id)
                    self._cancelled.discard(checkpoint_id)
                    self._idle.notify_all()

    def _write(
        self, checkpoint_id: str, objects: list[tuple[tuple[str, ...], Any]], absent: tuple[str, ...]
    ) -> Written:
        began = time.perf_counter()
        name = file_name(checkpoint_id)
        assert name is not None  # write() checked it
        part = name + ".part"
        unpicklable: dict[str, str] = {}
        with self._folder(create=True) as folder:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(part, dir_fd=folder)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(part, flags, 0o600, dir_fd=folder)
            with os.fdopen(fd, "wb") as out:
                header = {
                    "format": _FORMAT,
                    "version": _VERSION,
                    "session": self.session,
                    "id": checkpoint_id,
                    "absent": list(absent),
                }
                _frame(out, header)
                for names, value in objects:
                    start = out.tell()
                    _frame(out, tuple(names))
                    try:
                        _frame(out, value)
                    except Exception as exc:  # pickle refused it (a lambda, a lock, a connection)
                        out.seek(start)
                        out.truncate()
                        why = f"pickle refused it ({type(exc).__name__}: {exc})"[:300]
                        unpicklable.update(dict.fromkeys(names, why))
                _frame(out, {"end": True, "unpicklable": unpicklable})
                size = out.tell()
            os.rename(part, name, src_dir_fd=folder, dst_dir_fd=folder)
        return Written(size, unpicklable, time.perf_counter() - began)

    # -- reading -----------------------------------------------------------------------------------

    def read(self, checkpoint_id: str) -> Restored:
        """Read a checkpoint's file back (waiting for its write to finish).

        Raises:
            CheckpointFileError: the file is missing, damaged, not a checkpoint of this session, or
                the folder or file is not safe to load from (a symlink, another owner, open to others).
        """
        self.wait()
        name = file_name(checkpoint_id)
        if name is None:
            raise CheckpointFileError(str(checkpoint_id)[:40], "it names no file of ours")
        if self.problem is not None:
            raise CheckpointFileError(checkpoint_id, f"nothing is kept on disk: {self.problem}")
        try:
            with self._folder(create=False) as folder:
                try:
                    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
                    fd = os.open(name, flags, dir_fd=folder)
                except FileNotFoundError:
                    raise CheckpointFileError(
                        checkpoint_id,
                        f"its file {name} is missing from {self.folder} (deleted, or the kernel stopped "
                        "before it was written)",
                    ) from None
                except OSError as exc:  # ELOOP: a symlink
                    why = f"its file {name} cannot be opened ({exc})"
                    raise CheckpointFileError(checkpoint_id, why) from None
                with os.fdopen(fd, "rb") as file:
                    info = os.fstat(file.fileno())
                    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                        raise CheckpointFileError(checkpoint_id, f"{name} is not a file of this user")
                    return _read(file, checkpoint_id, self.session, name)
        except FileNotFoundError:
            raise CheckpointFileError(checkpoint_id, f"the folder {self.folder} is gone") from None
        except OSError as exc:
            why = f"the folder {self.folder} cannot be read ({exc})"
            raise CheckpointFileError(checkpoint_id, why) from None

    # -- the folder ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _folder(self, *, create: bool) -> Iterator[int]:
        """The session folder's descriptor, checked: not a symlink, this user's, mode 0700."""
        if create:
            self.folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.mkdir(self.folder, 0o700)
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.folder, flags)
        except OSError as exc:
            if os.path.islink(self.folder) or exc.errno == errno.ELOOP:
                raise CheckpointFileError("-", f"{self.folder} is a symlink: it is not followed") from None
            if isinstance(exc, NotADirectoryError):
                raise CheckpointFileError("-", f"{self.folder} is not a folder") from None
            raise
        try:
            info = os.fstat(fd)
            if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) != 0o700:
                raise CheckpointFileError(
                    "-",
                    f"{self.folder} is not this user's with mode 0700 "
                    f"(owner {info.st_uid}, mode {stat.S_IMODE(info.st_mode):o}): nothing is read from it",
                )
            yield fd
        finally:
            os.close(fd)


def _frame(out: BinaryIO, value: Any) -> None:
    """Write one frame: its length, the pickle of `value`, the pickle's digest (undone on failure)."""
    start = out.tell()
    out.write(_LENGTH.pack(0))
    hashing = _Hashing(out)
    try:
        pickle.dump(value, hashing, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:
        out.seek(start)
        out.truncate()
        raise
    end = out.tell()
    out.seek(start)
    out.write(_LENGTH.pack(end - start - _LENGTH.size))
    out.seek(end)
    out.write(hashing.digest.digest())


class _Hashing:
    """A writer that digests what passes through it."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.digest = hashlib.blake2b(digest_size=_DIGEST)

    def write(self, data: Any) -> int:
        self.digest.update(data)
        return self.out.write(data)


class _Frame:
    """A reader of one frame's pickle: no further than its length, digesting what it reads."""

    def __init__(self, file: BinaryIO, length: int) -> None:
        self.file = file
        self.left = length
        self.digest = hashlib.blake2b(digest_size=_DIGEST)

    def read(self, n: int = -1) -> bytes:
        n = self.left if n is None or n < 0 else min(n, self.left)
        data = self.file.read(n)
        self.left -= len(data)
        self.digest.update(data)
        return data

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        n: int = self.file.readinto(view[: min(len(view), self.left)])  # type: ignore[attr-defined]
        self.left -= n
        self.digest.update(view[:n])
        return n

    def readline(self, limit: int = -1) -> bytes:
        n = self.left if limit is None or limit < 0 else min(limit, self.left)
        data = self.file.readline(n)
        self.left -= len(data)
        self.digest.update(data)
        return data

    def finish(self) -> bool:
        """Read the rest of the frame; whether its digest matches."""
        while self.left > 0:
            if not self.read(min(self.left, 1 << 20)):
                return False
        return self.file.read(_DIGEST) == self.digest.digest()


def _next(file: BinaryIO) -> tuple[Any, BaseException | None, bool]:
    """One frame: (its value, the error unpickling raised, whether the frame is intact)."""
    head = file.read(_LENGTH.size)
    if len(head) != _LENGTH.size:
        return None, None, False
    frame = _Frame(file, _LENGTH.unpack(head)[0])
    value, error = None, None
    try:
        value = pickle.load(frame)  # our own file, in a folder only this user can write
    except Exception as exc:
        error = exc
    return value, error, frame.finish()


def _read(file: BinaryIO, checkpoint_id: str, session: str, name: str) -> Restored:
    damaged = f"{name} is damaged (not the file that was written)"
    header, error, intact = _next(file)
    if error is not None or not intact or not isinstance(header, dict) or header.get("format") != _FORMAT:
        raise CheckpointFileError(checkpoint_id, damaged)
    if header.get("version") != _VERSION:
        raise CheckpointFileError(checkpoint_id, f"{name} was written by another version of notebook_tools")
    if header.get("session") != session or header.get("id") != checkpoint_id:
        raise CheckpointFileError(checkpoint_id, f"{name} belongs to another checkpoint or session")
    values: dict[str, Any] = {}
    not_restored: dict[str, str] = {}
    while True:
        record, error, intact = _next(file)
        if not intact or error is not None:
            raise CheckpointFileError(checkpoint_id, damaged)
        if isinstance(record, dict) and record.get("end") is True:
            not_restored.update({str(k): str(v) for k, v in dict(record.get("unpicklable", {})).items()})
            break
        if not (isinstance(record, tuple) and all(isinstance(n, str) for n in record)):
            raise CheckpointFileError(checkpoint_id, damaged)
        value, error, intact = _next(file)
        if not intact:
            raise CheckpointFileError(checkpoint_id, damaged)
        if error is not None:  # intact, but this kernel cannot rebuild it (a class not defined yet)
            why = f"it could not be read back ({type(error).__name__}: {error})"[:300]
            not_restored.update(dict.fromkeys(record, why))
        else:
            values.update(dict.fromkeys(record, value))
    return Restored(values, tuple(str(a) for a in header.get("absent", [])), not_restored)
