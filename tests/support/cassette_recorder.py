"""Record prompts into a cassette against the API stand-in, replay them; the `cassette` command in-process."""

from __future__ import annotations

import asyncio
import contextlib
import io
import subprocess
from pathlib import Path
from typing import Any

import anthropic
import pytest

import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.__main__ import main
from tests.support.http_helpers import live_server
from tests.support.messages_standin import standin_app

KEY = "sk-ant-api03-" + "REVIEWKEY" * 5
SYSTEM = "You review."


def record(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: t.ScriptedTransport,
    prompts: list[str],
    *,
    name: str = "c.json",
    secrets: tuple[str, ...] = (),
    system: str = SYSTEM,
    key: str = KEY,
    tools: list[Any] | None = None,
) -> tuple[Path, list[Any], Any]:
    """Record `prompts` (one run each) against the stand-in serving `script`."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    path = tmp_path / name
    app = standin_app(script)
    try:
        with live_server(app) as base:
            cas = t.Cassette(path, "record", secrets=secrets)
            results = asyncio.run(run(cas.client(base_url=base), prompts, system, tools))
    finally:
        monkeypatch.delenv("ANTHROPIC_API_KEY")
    return path, results, app


async def run(
    client: anthropic.AsyncAnthropic, prompts: list[str], system: str = SYSTEM, tools: list[Any] | None = None
) -> list[Any]:
    agent = nt.Agent(client=client, system=system, tools=tools or [])
    out = []
    for prompt in prompts:
        result = await agent.run(prompt)
        out.append(result.model_dump(exclude={"agent_uuid"}))
    out.append({"messages": agent.state.messages})
    return out


def replay(
    path: Path,
    prompts: list[str],
    system: str = SYSTEM,
    tools: list[Any] | None = None,
    secrets: tuple[str, ...] = (),
) -> list[Any]:
    cas = t.Cassette(path, "replay", secrets=secrets)
    return asyncio.run(run(cas.client(), prompts, system, tools))


@nt.tool
def note(cmd: str) -> str:
    """Note a command."""
    return "noted"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m notebook_tools cassette ARGS`, in this process (a traceback would raise here)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["cassette", *args])
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())
