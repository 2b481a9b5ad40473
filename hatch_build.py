"""Hatch build hook: build the widgets' JS bundles (js/ -> notebook_tools/static/) when one is missing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class JSBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Runs `npm ci` and `npm run build` in js/ unless the bundles exist (skip-if-exists)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Build the bundle before the wheel is assembled."""
        root = Path(self.root)
        static = root / "notebook_tools" / "static"
        if all((static / name).exists() for name in ("widget.js", "bench.js")):  # the Chat's, the ToolBench's
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("building notebook_tools needs npm to bundle the widget (js/)")
        js = root / "js"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=js, check=True)
        subprocess.run([npm, "run", "build"], cwd=js, check=True)
