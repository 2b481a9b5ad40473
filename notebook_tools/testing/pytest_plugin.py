r"""pytest: a `cassette` fixture, so a test written against Claude records once and replays in CI.

    @pytest.mark.cassette("cassettes/clean.json")   # optional; relative to the test file
    @pytest.mark.cassette(secrets=[r"ghp_\w+"])      # or only more secret patterns (see nt.cassette)
    def test_clean(cassette):
        agent = nt.Agent(client=cassette.client(), ...)

Without the marker the file is `cassettes/<test module>/<test name>.json` next to the test (a
parametrized name gets a hash of it in place of what a file name cannot hold).
The mode is `--cassette-mode` or NOTEBOOK_TOOLS_CASSETTE (default "auto": replay when the
file exists and no ANTHROPIC_API_KEY is set). A replay that leaves recorded requests unused
warns with the `prune` command that drops them. Loaded by pytest through the package's
`pytest11` entry point once notebook_tools is installed.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from .._exceptions import CassetteError
from ._cassette import Cassette

__all__ = ["cassette", "file_name", "pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--cassette-mode record|replay|auto`."""
    parser.addoption(
        "--cassette-mode",
        choices=["record", "replay", "auto"],
        default=None,
        help="record or replay the `cassette` fixture's Messages API exchanges (default: "
        "NOTEBOOK_TOOLS_CASSETTE, else auto)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Declare the `cassette` marker."""
    config.addinivalue_line(
        "markers", "cassette(path, secrets=[...]): the test's cassette (relative to it), secret patterns"
    )


def file_name(node_name: str) -> str:
    """A file name for a test: its name where that is a safe one, else a safe part and a hash of it all.

    Parametrized names (`test_x[a/b]`, `test_x[a_b]`, `test_x[..]`) differ only in what is replaced,
    so the hash keeps each one's cassette its own, and the length stays within any file system's.
    """
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", node_name).strip("_.")[:80]
    if name == node_name and name:
        return name
    return f"{name}-{hashlib.sha256(node_name.encode()).hexdigest()[:10]}"


@pytest.fixture
def cassette(request: pytest.FixtureRequest) -> Iterator[Cassette]:
    """The test's cassette: record its Messages API exchanges, or replay them."""
    here = Path(request.path).parent
    marker = request.node.get_closest_marker("cassette")
    if marker is not None and marker.args:
        path = here / Path(marker.args[0])
    else:
        path = here / "cassettes" / Path(request.path).stem / f"{file_name(request.node.name)}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where the folder should be, a folder this process cannot write
        raise CassetteError(f"cassette {path} cannot be used: its folder cannot be made ({exc})") from None
    secrets = marker.kwargs.get("secrets", ()) if marker is not None else ()
    tape = Cassette(path, request.config.getoption("--cassette-mode"), secrets=secrets)
    yield tape
    tape.save()
    if tape.mismatch is None and (unused := tape.unused()):
        warnings.warn(unused, stacklevel=1)
