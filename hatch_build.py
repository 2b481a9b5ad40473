"""Hatch build hook: build the JS (js/) when a built file is missing.

The widgets' bundles go to notebook_tools/static/, the JupyterLab extension to notebook_tools/labextension/.
"""

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
        extension = root / "notebook_tools" / "labextension" / "package.json"
        built = [static / "widget.js", static / "bench.js", extension]
        if all(path.exists() for path in built):  # the Chat's, the ToolBench's, the JupyterLab extension
            return
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("building notebook_tools needs npm to bundle the widget (js/)")
        js = root / "js"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=js, check=True)
        subprocess.run([npm, "run", "build"], cwd=js, check=True)
