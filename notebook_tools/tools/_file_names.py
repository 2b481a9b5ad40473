"""File names from untrusted text: no folder part, no control characters, never empty."""

from __future__ import annotations

import os
import re

__all__ = ["safe_name"]

_UNSAFE = re.compile(r"[\x00-\x1f/\\:]+")


def safe_name(name: str) -> str:
    """A file name with no directory part or control characters."""
    cleaned = _UNSAFE.sub("_", os.path.basename(str(name).replace("\\", "/"))).strip(" .")
    return cleaned[:200] or "upload"
