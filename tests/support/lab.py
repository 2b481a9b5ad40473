"""A real JupyterLab on 127.0.0.1 and Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError("Debian's chromium is not installed; `./dev check` installs it")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Lab:
    """`jupyter lab` serving `root`, with the app exposed as window.jupyterapp for tests."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = _free_port()
        self.token = "nt-test-token"
        self.log = open(root / "jupyter.log", "w")  # noqa: SIM115
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(root / ".jupyter"),
            "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
        }
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                "lab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--port={self.port}",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={root}",
                "--allow-root",
                "--LabApp.expose_app_in_browser=True",
                "--ServerApp.port_retries=0",
                "--LabApp.news_url=",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=root,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{self.base}/api/status?token={self.token}", timeout=2).read()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "JupyterLab did not start: " + (root / "jupyter.log").read_text()[-3000:]
                    ) from None
                time.sleep(0.3)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, notebook: str) -> str:
        return f"{self.base}/lab/tree/{notebook}?token={self.token}&reset"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def write_notebook(path: Path, cells: list[str]) -> None:
    nb: dict[str, Any] = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"c{i}",
                "metadata": {},
                "outputs": [],
                "source": src,
            }
            for i, src in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1))


def open_notebook(page: Any, lab: Lab, name: str) -> None:
    page.goto(lab.url(name))
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=60_000)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    page.evaluate(
        """async () => {
            const panel = window.jupyterapp.shell.currentWidget;
            await panel.context.ready;
            await panel.sessionContext.ready;
        }"""
    )
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'",
        timeout=60_000,
    )


def run_all(page: Any) -> None:
    # Not awaited: the command resolves only when every cell finishes, and a cell waits for our clicks.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


def command(page: Any, name: str, args: dict[str, Any] | None = None) -> None:
    page.evaluate("([n, a]) => window.jupyterapp.commands.execute(n, a)", [name, args or {}])


def set_theme(page: Any, dark: bool) -> None:
    """Switch JupyterLab to its dark or light theme and wait until the stylesheet applies."""
    command(page, "apputils:change-theme", {"theme": "JupyterLab Dark" if dark else "JupyterLab Light"})
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{'false' if dark else 'true'}'")
    page.wait_for_timeout(400)  # the theme's stylesheet applies after the attribute changes


def no_news_toast(lab: Any) -> None:
    """No "get notified about Jupyter news?" toast over screenshots (set before the page opens)."""
    settings = lab.root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))


def wait_for_path(path: Path, timeout: float = 60.0, poll: float = 0.2) -> None:
    """Wait until `path` exists (a kernel cell wrote it)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path.name} was not written")
        time.sleep(poll)


def wait_for_file(path: Path, timeout: float = 60.0) -> Any:
    """The JSON a kernel cell wrote to `path`, once it is there."""
    wait_for_path(path, timeout)
    time.sleep(0.2)
    return json.loads(path.read_text())
