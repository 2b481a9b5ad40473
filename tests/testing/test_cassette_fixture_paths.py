"""The pytest `cassette` fixture's file paths: distinct names per parameter, a file in the folder's place."""

from __future__ import annotations

import json

from tests.support.cassette_recorder import KEY
from tests.support.cassette_sessions import key as key_fixture  # noqa: F401  (the `key` fixture)

pytest_plugins = ["pytester"]


PARAM_TEST = """
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

@pytest.mark.parametrize("name", ["a/b", "a_b", "a b", "../up", "[x]", "..", "x" * 300, "é", "A", "a"])
def test_p(cassette, name):
    cassette.exchanges.append({"request": {"name": name}, "response": {"status": 200, "body": {}}})
"""


def test_parametrized_names_get_distinct_files_inside_the_cassettes_folder(pytester, monkeypatch):
    pytester.makepyfile(test_names=PARAM_TEST)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    pytester.runpytest_inprocess("--cassette-mode=record", "-p", "no:cacheprovider").assert_outcomes(
        passed=10
    )
    folder = pytester.path / "cassettes" / "test_names"
    files = sorted(p for p in pytester.path.rglob("*.json"))
    assert all(p.parent == folder for p in files), files
    names = {json.loads(p.read_text())["exchanges"][0]["request"]["name"] for p in files}
    assert len(files) == 10 and len(names) == 10
    assert all(len(p.name) <= 120 for p in files)


BLOCKED_TEST = """
import pytest

@pytest.mark.cassette("blocker/c.json")
def test_t(cassette):
    pass
"""


def test_the_fixture_with_a_file_where_its_folder_should_be_is_a_cassette_error(pytester, key):
    """Was: FileExistsError from the fixture's mkdir, a traceback from inside the plugin."""
    pytester.makepyfile(test_blocked=BLOCKED_TEST)
    (pytester.path / "blocker").write_text("a file, not a folder")
    result = pytester.runpytest_inprocess("--cassette-mode=record", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*CassetteError: cassette *blocker*c.json cannot be used*"])
