"""The first five minutes, as a new user meets them: `./dev demo` from a fresh clone, then its URL in a browser.

A `git clone` of this repository's HEAD (what a person gets: nothing untracked, no `.venv`, no built
bundle) runs its own `./dev demo`. Two things stand in for the slow, networked parts of a first setup,
and only those: `NOTEBOOK_TOOLS_VENV` points `./dev` at this test run's environment, which it then uses
as it is (no new virtualenv, no pip), with the clone first on `PYTHONPATH` so that the kernel runs the
clone's package; and the clone's `js/node_modules` are hard links to this checkout's (npm's own install,
no download). The clone's `./dev` still builds the widget's bundle into the clone, picks the folder,
starts JupyterLab and prints its URL. A fresh `JUPYTER_CONFIG_DIR` and runtime folder keep the person's
own JupyterLab settings out of it.

The last URL the demo printed, opened in Chromium, shows the quickstart notebook itself (not the
Launcher) with its chat; the file browser lists the examples, not their cassettes and helpers; no
news toast shows; run, the chat's usage line says the model is scripted and costs nothing. Ctrl+C (a
SIGINT to the demo's process group, as a terminal sends it) ends the demo and its server cleanly.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.support.lab import PATIENT
from tests.support.readiness import wait_until

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"^https?://\S+$")
NOTIFICATION = "lab/api/settings/@jupyterlab/apputils-extension:notification"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=5).read()
    except OSError:
        return False
    return True


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A fresh clone of HEAD, its JS packages hard-linked from this checkout (same as `npm ci` would give)."""
    target = tmp_path / "notebook-tools"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(target)], check=True, timeout=300)
    installed = ROOT / "js" / "node_modules"
    if not (installed / ".package-lock.json").exists():
        pytest.fail("js/node_modules is not installed here; `./dev check` installs it")
    subprocess.run(
        ["cp", "-al", str(installed), str(target / "js" / "node_modules")], check=True, timeout=300
    )
    # ./dev installs the JS packages when package-lock.json is newer than the installed set: it is not
    stamp = (installed / ".package-lock.json").stat()
    os.utime(target / "js" / "package-lock.json", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    return target


class Demo:
    """`./dev demo` running, its output (stdout and stderr, as a terminal shows them) read line by line."""

    def __init__(self, clone: Path, home: Path, port: int) -> None:
        env = {
            **{
                k: v
                for k, v in os.environ.items()
                if k not in ("ANTHROPIC_API_KEY", "NOTEBOOK_TOOLS_SCRIPTED_USER")
            },
            "NOTEBOOK_TOOLS_VENV": sys.prefix,
            "PYTHONPATH": str(clone),
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "BROWSER": "true",  # were a browser launched, nothing opens
        }
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            # the test's own flags ride after the demo's: a fixed port, and the app exposed to the test.
            # Started with SIGINT at its default, as a terminal's foreground job is: a test run started in
            # the background (`nohup ... &`, a CI runner) ignores SIGINT, its children inherit that, and
            # a shell cannot trap a signal ignored when it started (the demo's Ctrl+C trap would be dead).
            [
                sys.executable,
                "-c",
                "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])",
                "./dev",
                "demo",
                "--no-browser",
                f"--port={port}",
                "--ServerApp.port_retries=0",
                "--LabApp.expose_app_in_browser=True",
            ],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def log(self) -> str:
        return "\n".join(self.lines)

    def interrupt(self) -> int:
        """Ctrl+C: SIGINT to the whole foreground group; the demo's exit code once it has ended."""
        os.killpg(self.proc.pid, signal.SIGINT)
        wait_until(lambda: self.proc.poll() is not None, "the demo to end after Ctrl+C", log=self.log)
        self._reader.join(30)
        return self.proc.returncode

    def close(self) -> None:
        """Whatever happened: the group killed if it still runs, the pipe closed."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
        self._reader.join(30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def test_dev_demo_from_a_fresh_clone_opens_the_quickstart_with_its_chat_and_a_scripted_usage_line(
    browser, clone, tmp_path
):
    port = _free_port()
    demo = Demo(clone, tmp_path / "jupyter", port)
    try:
        # ready when the demo printed a line after the URL's own announcement: the server answers then
        def printed_url() -> str | None:
            lines = [line for line in demo.lines if line.strip()]
            said = [i for i, line in enumerate(lines) if line.startswith("==> JupyterLab serves")]
            return lines[-1] if said and said[-1] < len(lines) - 1 else None

        last = wait_until(
            printed_url,
            "./dev demo to print its URL",
            poll=0.2,
            alive=lambda: demo.proc.poll() is None,
            log=demo.log,
        )
        assert URL.match(last), demo.log()
        assert f"JupyterLab serves {clone / 'notebooks'}" in demo.log()  # it says which folder it serves
        assert last.startswith(f"http://127.0.0.1:{port}/lab/tree/01_quickstart.ipynb?token="), last
        assert (clone / "notebook_tools" / "static" / "widget.js").exists()  # the clone's ./dev built it

        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            page.goto(last)
            page.wait_for_function(
                "() => window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=PATIENT
            )
            page.wait_for_selector(".jp-Notebook", timeout=PATIENT)
            opened = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.path")
            assert opened == "01_quickstart.ipynb"
            page.wait_for_function(
                "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'",
                timeout=PATIENT,
            )
            # the file browser lists the examples: notebooks, and folders for what serves them
            page.wait_for_selector(".jp-DirListing-item", timeout=PATIENT)
            listed = page.locator(".jp-DirListing-item .jp-DirListing-itemText").all_text_contents()
            assert "01_quickstart.ipynb" in listed and "cassettes" in listed, listed
            assert [name for name in listed if not name.endswith(".ipynb")] == ["cassettes", "servers"], (
                listed
            )

            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            status = page.locator(".nt-chat .nt-status-text")
            page.wait_for_function(
                "() => /scripted model/.test(document.querySelector('.nt-chat .nt-status-text')?.textContent ?? '')",
                timeout=PATIENT,
            )
            line = status.inner_text()
            assert "(estimated) · scripted model, no cost" in line and "$" not in line, line
            # the quickstart's questions: a card comes just after the usage line (waited for, not counted at once)
            page.locator(".nt-chat section.nt-prompt").first.wait_for(timeout=PATIENT)

            # no news toast, and none to come: the defaults the demo's server gives say JupyterLab never asks
            assert page.locator(".Toastify__toast").count() == 0
            token = last.split("token=", 1)[1]
            plugin = json.loads(
                urllib.request.urlopen(
                    f"{last.split('/lab/', 1)[0]}/{NOTIFICATION}?token={token}", timeout=30
                ).read()
            )
            defaults = {k: v.get("default") for k, v in plugin["schema"]["properties"].items()}
            assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False, defaults
        finally:
            page.close()

        assert demo.interrupt() == 0, demo.log()
        assert not _answers(f"http://127.0.0.1:{port}/api/status"), "the server still answers after Ctrl+C"
        assert "Shutdown this Jupyter server" not in demo.log()
        leftover = [p for p in (tmp_path / "jupyter" / "runtime").glob("jpserver-*.json")]
        assert leftover == [], demo.log()  # it stopped as JupyterLab stops itself: its server file removed
    finally:
        demo.close()
        shutil.rmtree(clone, ignore_errors=True)
