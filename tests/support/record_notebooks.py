"""Record the example notebooks' cassettes, and save each notebook with the outputs nbval compares.

    .venv/bin/python tests/support/record_notebooks.py            # every notebook in notebook_standins.STANDINS
    .venv/bin/python tests/support/record_notebooks.py 02_clean_a_dataframe.ipynb

There is no real key here, so "Claude" is the Messages API stand-in (tests/support/messages_standin.py) on a
local port, serving the notebook's script (tests/support/notebook_standins.py). The notebook runs in a real
kernel through nbconvert's ExecutePreprocessor, in the notebook's own directory, with
NOTEBOOK_TOOLS_CASSETTE=record, a fake key and ANTHROPIC_BASE_URL pointing at the stand-in, and
NOTEBOOK_TOOLS_SCRIPTED_USER=1 (a scripted user answers the prompts, and the cassette keeps the
answers). The cassette is written to `cassettes/` beside the notebook (where the notebook's
`nt.cassette("cassettes/...")` opens it), and the executed notebook replaces it.

A notebook that runs the Claude Code CLI (`CLAUDE_CODE`) gets the CLI's offline settings too
(tests/support/claude_code_standin.py: the stand-in as its API, no nonessential traffic, a home of its
own, a model it knows): the real CLI runs against the same stand-in, and the cassette keeps its lines.

Afterwards `pytest --nbval notebooks/<name>` replays it with no key and no server (and no CLI).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ExecutePreprocessor

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:  # run as a script: the helpers beside it are importable as tests.support
    sys.path.insert(0, str(ROOT))

from tests.support.claude_code_standin import MODEL, offline_env  # noqa: E402
from tests.support.http_helpers import live_server  # noqa: E402
from tests.support.messages_standin import standin_app  # noqa: E402
from tests.support.notebook_standins import STANDINS  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
FAKE_KEY = "sk-ant-standin-" + "0" * 24
"""The key the kernel records with: the stand-in wants one; it must never reach a cassette or an output."""
CELL_TIMEOUT = 120
MCP_BIN = ROOT / "tests" / "mcp" / "node" / "node_modules" / ".bin"


CASSETTES = "cassettes"
"""The folder beside the notebooks that holds their cassettes (the examples list stays notebooks first)."""
CLAUDE_CODE = frozenset({"14_claude_code.ipynb"})
"""The notebooks that run the Claude Code CLI (offline, against the stand-in, when recorded)."""
SERVERS = "servers"
"""The folder beside the notebooks that holds the MCP servers they start (notebook 12's app)."""


def cassette_of(notebook: Path) -> Path:
    """The cassette a notebook opens: its own name with `.cassette.json`, in `cassettes/` beside it."""
    return notebook.parent / CASSETTES / (notebook.stem + ".cassette.json")


@contextlib.contextmanager
def _environment(values: dict[str, str], drop: tuple[str, ...] = ()) -> Iterator[None]:
    """`values` set (and `drop` unset) in os.environ, which the kernel inherits; restored afterwards."""
    saved = {k: os.environ.get(k) for k in (*values, *drop)}
    os.environ.update(values)
    for key in drop:
        os.environ.pop(key, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def execute(notebook: nbformat.NotebookNode, cwd: Path) -> None:
    """Run every cell of `notebook` in a fresh kernel started in `cwd` (with this process's environment).

    The outputs land in `notebook`. Raises nbclient's CellExecutionError when a cell fails.
    """
    executor = ExecutePreprocessor(timeout=CELL_TIMEOUT, kernel_name="python3")
    executor.preprocess(notebook, {"metadata": {"path": str(cwd)}})
    # no widget state in the saved notebook: a live kernel restores its widgets, and the copy of a
    # kernel that is gone is stale (it carried the whole widget module for every widget)
    notebook.metadata.pop("widgets", None)


def record(name: str, out_dir: Path | None = None) -> tuple[Path, Path]:
    """Record notebook `name` (in notebooks/) into `out_dir` (default: notebooks/ itself).

    Returns the paths of the executed notebook and its cassette. Raises
    nbclient's CellExecutionError when a cell fails.
    """
    source = NOTEBOOKS / name
    out_dir = (out_dir or NOTEBOOKS).resolve()
    target = out_dir / name
    if target != source:
        out_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        # the servers a notebook starts, where its cells name them (recording runs them for real)
        shutil.copytree(NOTEBOOKS / SERVERS, out_dir / SERVERS, dirs_exist_ok=True)
    cassette = cassette_of(target)
    cassette.parent.mkdir(parents=True, exist_ok=True)
    cassette.unlink(missing_ok=True)  # a fresh recording, not the tail of an old one
    notebook = nbformat.read(target, as_version=4)
    app = standin_app(STANDINS[name](), priced=False)  # a script wrote these replies, not Claude
    with live_server(app) as base, tempfile.TemporaryDirectory(prefix="record-home-") as home:
        env = {
            # the CLI's settings first: the stand-in, no traffic of its own, a home of its own, its model
            **(offline_env(base, Path(home)) | {"ANTHROPIC_MODEL": MODEL} if name in CLAUDE_CODE else {}),
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "ANTHROPIC_BASE_URL": base,
            "NOTEBOOK_TOOLS_CASSETTE": "record",
            "NOTEBOOK_TOOLS_SCRIPTED_USER": "1",
            # the MCP servers the notebooks start (installed by ./dev's setup), found as a person's PATH would
            "PATH": f"{MCP_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        with _environment(env, drop=("ANTHROPIC_AUTH_TOKEN",)):
            execute(notebook, out_dir)
    texts = {"the cassette": cassette.read_text(encoding="utf-8"), "the notebook": nbformat.writes(notebook)}
    leaks = [
        f"{what} in {where}"
        for where, text in texts.items()
        for what, secret in (("the key", FAKE_KEY), ("the stand-in's URL", base))
        if secret in text
    ]
    if leaks:
        raise RuntimeError(f"recording {name} would leak {', '.join(leaks)}")
    nbformat.write(notebook, target)
    return target, cassette


def main(argv: list[str] | None = None) -> int:
    """Record the named notebooks (default: all that have a stand-in script)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("notebooks", nargs="*", help="notebook file names in notebooks/ (default: all)")
    parser.add_argument("--out", type=Path, default=None, help="write here instead of notebooks/")
    args = parser.parse_args(argv)
    for name in args.notebooks or sorted(STANDINS):
        name = Path(name).name
        if name not in STANDINS:
            parser.error(f"no stand-in script for {name} (known: {', '.join(sorted(STANDINS))})")
        notebook, cassette = record(name, args.out)
        print(f"recorded {cassette} and saved {notebook}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
