"""An agent session on a cassette client, the `key` fixture, a slow tool, the `cassette` command run here."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

import notebook_tools as nt
from notebook_tools.__main__ import main

KEY = "sk-ant-api03-" + "FAULTKEY" * 5
SYSTEM = "You review faults."


@pytest.fixture(name="key")  # named, so a test module can import it as key_fixture
def key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    yield
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def cli(*args: str) -> tuple[int, str, str]:
    """`python -m notebook_tools cassette ARGS`, in this process (a traceback would raise here)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["cassette", *args])
    return code, out.getvalue(), err.getvalue()


def comparable(events: list[Any]) -> list[dict[str, Any]]:
    out = []
    for event in events:
        data = event.model_dump(mode="json", exclude={"time", "agent_uuid"})
        data.pop("duration", None)
        for pending in data.get("pending", []):
            pending.pop("requested_at", None)
        out.append(data)
    return out


async def session(client: anthropic.AsyncAnthropic, prompts: list[str], **agent: Any) -> Any:
    agent_ = nt.Agent(client=client, system=SYSTEM, stream_retries=2, retry_delay=0, **agent)
    recorder = nt.EventRecorder()
    agent_.events.subscribe(recorder)
    texts = [(await agent_.run(p)).text for p in prompts]
    return texts, agent_.state.messages, comparable(recorder.events)


@nt.tool
async def slow_note(text: str) -> str:
    """Note something, taking a moment."""
    await asyncio.sleep(0)
    return f"noted {text}"
