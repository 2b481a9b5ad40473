"""A real JupyterLab on 127.0.0.1 and Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.readiness import CEILING, wait_until

PATIENT = int(CEILING * 1000)
"""Milliseconds a browser wait allows (Playwright counts in ms): the shared ceiling, so that only a hang
fails it, however slowly a loaded machine gets there. A timeout is no pass condition."""
KERNEL = "window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel"
"""The current notebook's kernel connection in the page, or undefined while the page (re)connects to
it: a predicate reads `${KERNEL}?.status`, and waits, where a plain path threw before there was one."""

PANEL = "window.jupyterapp.shell.currentWidget"
"""The notebook panel JupyterLab shows, in a page's JavaScript (the app is exposed to the tests)."""

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
    """`jupyter lab` (or Notebook 7: `app="notebook"`) serving `root`, the app exposed as window.jupyterapp."""

    def __init__(self, root: Path, app: str = "lab") -> None:
        if app not in ("lab", "notebook"):
            raise ValueError(f"app must be 'lab' or 'notebook', not {app!r}")
        self.root = root
        self.app = app
        # its own token: a test server of another run, on a port ours lost to it, answers 403, not "ready"
        self.token = secrets.token_hex(12)
        # a person in a browser answers here: no scripted user (the root conftest sets one for nbval)
        self._env = {
            **{k: v for k, v in os.environ.items() if k != "NOTEBOOK_TOOLS_SCRIPTED_USER"},
            "JUPYTER_CONFIG_DIR": str(root / ".jupyter"),
            "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
        }
        # The port is chosen here and bound by the server seconds later: another process (a test run
        # beside this one) may take it meanwhile, and the server then exits saying so. Started again on
        # another port (five tries); any other exit fails at once with the server's log.
        for attempt in range(5):
            self.port = _free_port()
            self.log = open(root / "jupyter.log", "w")  # noqa: SIM115
            self.proc = self._start()
            try:
                wait_until(  # ready when its API answers, however long a loaded machine takes
                    self._answers,
                    f"JupyterLab on port {self.port} to answer",
                    poll=0.3,
                    alive=lambda: self.proc.poll() is None,
                    log=self._log_text,
                )
                assert self.proc.poll() is None, f"the server that answers on port {self.port} is not ours"
                return
            except AssertionError:
                taken = self.proc.poll() is not None and "already in use" in self._log_text()
                self.close()
                if not taken or attempt == 4:
                    raise

    def _log_text(self) -> str:
        return (self.root / "jupyter.log").read_text(errors="replace")

    def _start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                self.app,
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--port={self.port}",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={self.root}",
                "--allow-root",
                "--ServerApp.port_retries=0",
                *(
                    [
                        "--LabApp.expose_app_in_browser=True",
                        "--LabApp.news_url=",
                        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                    ]
                    if self.app == "lab"
                    else ["--JupyterNotebookApp.expose_app_in_browser=True"]
                ),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=self._env,
            cwd=self.root,
        )

    def _answers(self) -> bool:
        try:
            urllib.request.urlopen(f"{self.base}/api/status?token={self.token}", timeout=5).read()
        except OSError:
            return False
        return True

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, notebook: str) -> str:
        if self.app == "notebook":
            return f"{self.base}/notebooks/{notebook}?token={self.token}"
        return f"{self.base}/lab/tree/{notebook}?token={self.token}&reset"

    def _api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.base}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            body = reply.read()
        return json.loads(body) if body else None

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and self._answers()

    def reset(self) -> None:
        """As a fresh server for the next module of tests: every session and kernel shut down, the root
        emptied (notebooks and files the tests wrote, settings a module chose); the server's own files
        and its process kept (starting one costs 4 s on a quiet machine, 15 s on a loaded one)."""
        for kind in ("sessions", "kernels"):  # a session's deletion shuts its kernel down too
            for each in self._api("GET", f"/api/{kind}"):
                try:
                    self._api("DELETE", f"/api/{kind}/{each['id']}")
                except urllib.error.HTTPError as err:
                    if err.code != 404:  # gone meanwhile
                        raise
        wait_until(
            lambda: not self._api("GET", "/api/kernels"), "the test server's kernels to shut down", poll=0.2
        )
        for path in self.root.iterdir():
            if path.name in (".jupyter", ".runtime", "jupyter.log"):
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        shutil.rmtree(self.root / ".jupyter" / "lab" / "user-settings", ignore_errors=True)

    def close(self) -> None:
        """Stop the server, which shuts its kernels down first, however long a loaded machine takes: a
        kill only after the ceiling, and its exit always waited for. (It was killed after 10 s and never
        waited for: on a loaded machine the Popen was collected with the server still running, and the
        ResourceWarning failed whichever test was running then.)"""
        self.proc.terminate()
        try:
            self.proc.wait(CEILING)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def comms_over_subshells(lab: Lab, mode: str) -> None:
    """JupyterLab's "Kernel Comms over subshells" setting ("disabled" is how VS Code and Colab talk to a
    kernel: every comm message on the main shell); read when a page loads."""
    folder = lab.root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernels-settings.jupyterlab-settings").write_text(json.dumps({"commsOverSubshells": mode}))


def save_widget_state(lab: Lab) -> None:
    """JupyterLab's "Save widget state automatically" on (read when a page loads): a reload finds widgets."""
    folder = lab.root / ".jupyter" / "lab" / "user-settings" / "@jupyter-widgets" / "jupyterlab-manager"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.jupyterlab-settings").write_text(json.dumps({"saveState": True}))


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
    # JupyterLab shows no notebook for a path its root lacks, and the wait below would last the ceiling
    if not (lab.root / name).is_file():
        raise FileNotFoundError(f"{name} is not in the test server's root {lab.root}")
    page.goto(lab.url(name))
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
    )
    page.wait_for_selector(".jp-Notebook", timeout=PATIENT)
    page.evaluate(
        """async () => {
            const panel = window.jupyterapp.shell.currentWidget;
            await panel.context.ready;
            await panel.sessionContext.ready;
        }"""
    )
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'",
        timeout=PATIENT,
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
    # the theme's stylesheet applies after the attribute changes: waited for until the page's own
    # background (JupyterLab's --jp-layout-color0) is dark, or light, rather than for a guessed time
    page.wait_for_function(
        """(dark) => {
          const probe = document.createElement("div");
          probe.style.color = getComputedStyle(document.body).getPropertyValue("--jp-layout-color0").trim();
          document.body.append(probe);
          const [r, g, b] = getComputedStyle(probe).color.match(/[\\d.]+/g).map(Number);
          probe.remove();
          const light = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.5;
          return dark ? !light : light;
        }""",
        arg=dark,
        timeout=PATIENT,
    )


def no_news_toast(lab: Any) -> None:
    """No "get notified about Jupyter news?" toast over screenshots (set before the page opens)."""
    settings = lab.root / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))


def wait_for_path(path: Path, timeout: float | None = None, poll: float = 0.2) -> None:
    """Wait until `path` exists (a kernel cell wrote it); `timeout` is only a safety ceiling."""
    wait_until(path.exists, f"{path.name} to be written", ceiling=_ceiling(timeout), poll=poll)


def wait_for_file(path: Path, timeout: float | None = None) -> Any:
    """The JSON a kernel cell wrote to `path`, once it is all there.

    A cell's `write_text` is not atomic: the file can exist empty or half written. It is read
    again until it parses, never after a guessed pause.
    """

    def complete() -> list[Any]:
        try:
            return [json.loads(path.read_text())]
        except (OSError, ValueError):  # not there yet, or still being written
            return []

    return wait_until(complete, f"{path.name} to hold complete JSON", ceiling=_ceiling(timeout), poll=0.05)[0]


def _ceiling(timeout: float | None) -> float:
    """A caller's timeout, never below the shared safety ceiling (a timeout is no pass condition)."""
    return CEILING if timeout is None else max(timeout, CEILING)
