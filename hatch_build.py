"""Hatch build hook: build the widget's JS bundle (js/ -> notebook_tools/static/) when it is missing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class JSBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Runs `npm ci` and `npm run build` in js/ unless the bundle exists (skip-if-exists)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Build the bundle before the wheel is assembled."""
        root = Path(self.root)
        bundle = root / "notebook_tools" / "static" / "widget.js"
        if bundle.exists():
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("building notebook_tools needs npm to bundle the widget (js/)")
        js = root / "js"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=js, check=True)
        subprocess.run([npm, "run", "build"], cwd=js, check=True)
