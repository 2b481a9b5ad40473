"""The official AG-UI TypeScript client (@ag-ui/client's HttpAgent) driving a live server, from pytest.

`converse` runs tests/server/node/converse.mjs (installed by ./dev's setup: npm ci in tests/server/node)
with one JSON document on stdin and returns what the client saw: its messages at the end, one
record per run (outcome, pendingToolCallIds, interrupts, result, the event types in order, an
error, the asks it saw and answered), and each thread's final client state. See converse.mjs for the steps.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "tests" / "server" / "node"
SCRIPT = NODE_DIR / "converse.mjs"
CLIENT = NODE_DIR / "node_modules" / "@ag-ui" / "client" / "package.json"


def converse(
    url: str,
    token: str,
    thread_id: str,
    steps: list[dict[str, Any]],
    tools: Sequence[dict[str, Any]] = (),
    timeout: float = 120,
    *,
    run_timeout: float | None = None,
    asks: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run `steps` against the AG-UI endpoint at `url` with the official client; what it saw.

    Args:
        url: The endpoint, e.g. ``http://127.0.0.1:PORT/agui``.
        token: The bearer token.
        thread_id: The thread every run (and a reloaded client) uses.
        steps: What the person does, one run each (see converse.mjs).
        tools: Client tools (name, description, parameters), sent on every run.
        timeout: Seconds the whole conversation may take before node is killed.
        run_timeout: Seconds one run may take before the client aborts it (converse.mjs: 60).
        asks: How the client answers what a running call asks (`notebook_tools.ask` events), by
            prompt name: the output object, ``{"status": "skipped" | "failed"}``, or ``{"stop": True}``
            (Stop the run instead); an ask not named is left unanswered (see converse.mjs).

    Raises:
        AssertionError: node is missing, the client is not installed, or the script failed or hung
            (with its stderr). A run that fails is not an error here: its record says so.
    """
    node = shutil.which("node")
    assert node is not None, "node is not on PATH (the AG-UI client tests need Node.js)"
    assert CLIENT.exists(), (
        "tests/server/node is not installed: run ./dev check (its setup runs npm ci there)"
    )
    document: dict[str, Any] = {
        "url": url,
        "token": token,
        "threadId": thread_id,
        "tools": list(tools),
        "steps": steps,
    }
    if run_timeout is not None:
        document["timeout"] = run_timeout
    if asks is not None:
        document["asks"] = asks
    try:
        done = subprocess.run(
            [node, str(SCRIPT)],
            input=json.dumps(document),
            capture_output=True,
            text=True,
            cwd=NODE_DIR,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        said = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
        raise AssertionError(
            f"converse.mjs did not end within {timeout} s; its stderr:\n{said[-4000:]}"
        ) from None
    if done.returncode != 0:
        raise AssertionError(
            f"converse.mjs exited with {done.returncode}; its stderr:\n{done.stderr[-4000:]}"
        )
    try:
        found: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(
            f"converse.mjs printed no JSON: {done.stdout[:2000]!r}; its stderr:\n{done.stderr[-4000:]}"
        ) from None
    return found


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # arguments that are not JSON are kept as they came


def client_transcript(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The client's messages as comparable dicts (activity messages, the client's own, dropped).

    Each is ``{"id", "role", "content"}`` (content None when absent) with ``"toolCalls"``
    (``[{"id", "name", "arguments"}]``, arguments parsed from JSON) when it has some,
    ``"toolCallId"`` on a tool message and ``"error"`` when one is set.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "activity":
            continue
        entry: dict[str, Any] = {
            "id": message.get("id"),
            "role": message.get("role"),
            "content": message.get("content"),
        }
        calls = message.get("toolCalls") or []
        if calls:
            entry["toolCalls"] = [
                {
                    "id": call.get("id"),
                    "name": call.get("function", {}).get("name"),
                    "arguments": _arguments(call.get("function", {}).get("arguments", "")),
                }
                for call in calls
            ]
        if message.get("toolCallId") is not None:
            entry["toolCallId"] = message["toolCallId"]
        if message.get("error") is not None:
            entry["error"] = message["error"]
        out.append(entry)
    return out
