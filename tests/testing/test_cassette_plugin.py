"""The pytest `cassette` fixture: a test records once against the (stand-in) API, then replays with no
key and no server, and fails naming what changed when the test's request does. The CLI shows and
prunes the cassette it wrote."""

from __future__ import annotations

import json
import subprocess
import sys

from notebook_tools import testing as t
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

pytest_plugins = ["pytester"]

TEST_FILE = """
import asyncio, os
import notebook_tools as nt

def test_clean(cassette):
    agent = nt.Agent(client=cassette.client(base_url=os.environ.get("STANDIN_URL")), system=SYSTEM)
    result = asyncio.run(agent.run("Clean it"))
    assert result.text == "Cleaned."
"""


def test_the_fixture_records_then_replays_then_names_a_change(pytester, monkeypatch):
    pytester.makepyfile(test_tape=TEST_FILE.replace("SYSTEM", repr("You clean data.")))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "PLUGINKEY" * 4)
    with live_server(standin_app(t.ScriptedTransport(t.reply("Cleaned.")))) as base:
        monkeypatch.setenv("STANDIN_URL", base)
        pytester.runpytest_inprocess("--cassette-mode=record", "-p", "no:cacheprovider").assert_outcomes(
            passed=1
        )
    tape = pytester.path / "cassettes" / "test_tape" / "test_clean.json"
    recorded = json.loads(tape.read_text())
    assert len(recorded["exchanges"]) == 1 and "PLUGINKEY" not in tape.read_text()

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("STANDIN_URL")  # no server now: the SDK's default address is never reached
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert json.loads(tape.read_text()) == recorded

    pytester.makepyfile(test_tape=TEST_FILE.replace("SYSTEM", repr("You are a pirate.")))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*`system` differs*"])

    shown = subprocess.run(
        [sys.executable, "-m", "notebook_tools", "cassette", "show", str(tape)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "system: You clean data." in shown and "user: Clean it" in shown and "assistant: Cleaned." in shown
    pruned = subprocess.run(
        [sys.executable, "-m", "notebook_tools", "cassette", "prune", str(tape), "--after", "0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "dropped 1 exchanges" in pruned and json.loads(tape.read_text())["exchanges"] == []


def test_a_marker_names_the_file_and_unused_requests_are_reported(pytester, monkeypatch):
    pytester.makepyfile(
        test_marked=TEST_FILE.replace("SYSTEM", repr("You clean data."))
        .replace(
            "def test_clean",
            "import pytest\n\n@pytest.mark.cassette('tapes/one.json', secrets=[r'ghp_\\w+'])\ndef test_clean",
        )
        .replace('agent.run("Clean it")', 'agent.run("Clean it with ghp_Private0Token")')
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "PLUGINKEY" * 4)
    with live_server(standin_app(t.ScriptedTransport(t.reply("Cleaned."), t.reply("Again.")))) as base:
        monkeypatch.setenv("STANDIN_URL", base)
        pytester.runpytest_inprocess("--cassette-mode=record", "-p", "no:cacheprovider").assert_outcomes(
            passed=1
        )
    tape = pytester.path / "tapes" / "one.json"
    assert "ghp_Private0Token" not in tape.read_text()  # the marker's secret pattern held
    data = json.loads(tape.read_text())
    data["exchanges"].append(data["exchanges"][0])  # a request the test no longer makes
    tape.write_text(json.dumps(data))
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-W", "always")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*requests 2-2 of 2 were not replayed*prune*--after 1*"])
