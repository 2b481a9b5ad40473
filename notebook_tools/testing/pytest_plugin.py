"""pytest: a `cassette` fixture, so a test written against Claude records once and replays in CI.

    @pytest.mark.cassette("cassettes/clean.json")   # optional; relative to the test file
    def test_clean(cassette):
        agent = nt.Agent(client=cassette.client(), ...)

Without the marker the file is `cassettes/<test module>/<test name>.json` next to the test.
The mode is `--cassette-mode` or NOTEBOOK_TOOLS_CASSETTE (default "auto": replay when the
file exists and no ANTHROPIC_API_KEY is set). A replay that leaves recorded requests unused
warns with the `prune` command that drops them. Loaded by pytest through the package's
`pytest11` entry point once notebook_tools is installed.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from ._cassette import Cassette

__all__ = ["cassette", "pytest_addoption", "pytest_configure"]


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
    config.addinivalue_line("markers", "cassette(path): the cassette file of this test (relative to it)")


@pytest.fixture
def cassette(request: pytest.FixtureRequest) -> Iterator[Cassette]:
    """The test's cassette: record its Messages API exchanges, or replay them."""
    here = Path(request.path).parent
    marker = request.node.get_closest_marker("cassette")
    if marker is not None and marker.args:
        path = here / Path(marker.args[0])
    else:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name).strip("_")
        path = here / "cassettes" / Path(request.path).stem / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tape = Cassette(path, request.config.getoption("--cassette-mode"))
    yield tape
    tape.save()
    if tape.mismatch is None and (unused := tape.unused()):
        warnings.warn(unused, stacklevel=1)
