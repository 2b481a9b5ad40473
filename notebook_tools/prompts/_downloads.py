"""Serving a `download_file` call: which file a call names, read within its limit, saved as what.

The tool itself is declared in `tools/_browser_tools`; this is the kernel's side of the bytes,
used by any front end that sends a download (the widget's `download` message).
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path
from typing import Any

from .._exceptions import FileAccessError
from ..tools._file_names import safe_name
from ._files import FileInbox

__all__ = ["downloadable", "media_type", "read_at_most"]


def downloadable(inbox: FileInbox, arguments: dict[str, Any]) -> tuple[Path, str]:
    """The file a `download_file` call names, and the name to save it as; checked before any byte is read.

    Only a regular file inside the chat's root, with no hidden part (`.env`, `.ssh/...`) on the way
    there, within `max_upload_bytes`; the save name has no folder part.

    Raises:
        FileAccessError: saying why the file cannot be sent (the model is told).
    """
    relative = arguments.get("path")
    if not isinstance(relative, str) or not relative.strip():
        raise FileAccessError("download_file needs a 'path'")
    path = inbox.resolve(relative)  # refuses '..' and links that leave the root
    if any(part.startswith(".") for part in (*Path(relative).parts, *path.relative_to(inbox.root).parts)):
        raise FileAccessError(f"{relative!r} is hidden (a name starting with '.'); hidden files are not sent")
    if not path.is_file():
        raise FileAccessError(f"{relative!r} is not a file in the working folder")
    size = path.stat().st_size
    if size > inbox.max_upload_bytes:
        limit = inbox.max_upload_bytes
        raise FileAccessError(f"{relative!r} is {size:,} bytes; the limit is {limit:,} bytes")
    return path, safe_name(str(arguments.get("filename") or path.name))


def read_at_most(path: Path, limit: int) -> bytes:
    """A file's bytes through one open handle, refused when over `limit` (checked again as it is read).

    Raises:
        FileAccessError: the file is (or grew) over the limit.
    """
    with path.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        data = file.read(limit + 1) if size <= limit else b""
    if size > limit or len(data) > limit:
        raise FileAccessError(f"{path.name!r} is over the limit of {limit:,} bytes")
    return data


def media_type(name: str) -> str:
    """The MIME type a download is saved with."""
    return mimetypes.guess_type(name)[0] or "application/octet-stream"
