"""Loading an agent factory named `PATH_OR_MODULE:CALLABLE`, for the command line and the server.

A target ending in `.py` or holding a path separator is a file, loaded with importlib (it
need not be on sys.path); anything else is a module name, imported with the working
directory on sys.path.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from ._exceptions import AgentSpecError

__all__ = ["agent_factory"]


def agent_factory(spec: str) -> Callable[[], Any]:
    """The zero-argument callable `PATH_OR_MODULE:CALLABLE` names (not called).

    Raises:
        AgentSpecError: the spec is malformed, or the file or callable is missing.
        Exception: whatever loading the module raised.
    """
    target, sep, name = spec.rpartition(":")  # rpartition: a Windows path keeps its drive letter
    if not sep or not target or not name.isidentifier():
        raise AgentSpecError(f"--agent takes PATH_OR_MODULE:CALLABLE (e.g. my_agents.py:build), not {spec!r}")
    module = _load_module(target)
    build: Callable[[], Any] | None = getattr(module, name, None)
    if not callable(build):
        raise AgentSpecError(f"{target} has no callable {name!r}")
    return build


def _load_module(target: str) -> ModuleType:
    if target.endswith(".py") or "/" in target or os.sep in target:
        path = Path(target).resolve()
        if not path.is_file():
            raise AgentSpecError(f"no such file: {target}")
        name = f"_notebook_tools_agent_{path.stem}"
        found = importlib.util.spec_from_file_location(name, path)
        if found is None or found.loader is None:
            raise AgentSpecError(f"cannot load {target} as Python")
        module = importlib.util.module_from_spec(found)
        sys.modules[name] = module  # dataclasses and pickling look a class's module up by name
        try:
            found.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(target)
