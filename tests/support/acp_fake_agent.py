"""A scripted ACP agent on stdio, for orderings a real agent makes only sometimes.

Run as `python -m tests.support.acp_fake_agent SCRIPT LOG`: SCRIPT is a JSON file holding one list
of steps per prompt; LOG is where every message it received is appended (a JSON line each), so a
test reads what the client answered. Steps:

- `{"write": [message, ...]}`: the messages (notifications or requests, `"id"` given) written in
  ONE write, as one read on the client's side;
- `{"await": id}`: wait for the client's response to request `id`;
- `{"on_cancel": [message, ...]}`: wait for `session/cancel`, then write these at once;
- the prompt is answered with `{"stopReason": ...}` of the turn's last step `{"end": reason}`.

`$SESSION` in a message is replaced by the session id. Nothing else: the real agents are tested with
`@agentclientprotocol/claude-agent-acp` (tests/acp/test_acp_agent.py).
"""

from __future__ import annotations

import json
import sys
from typing import Any

SESSION = "fake-session-1"


def main(script_path: str, log_path: str) -> None:
    with open(script_path, encoding="utf-8") as f:
        turns: list[list[dict[str, Any]]] = json.load(f)
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (open for the process's life)
    inbox: list[dict[str, Any]] = []

    def receive() -> dict[str, Any]:
        line = sys.stdin.readline()
        if not line:
            raise SystemExit(0)
        message = json.loads(line)
        log.write(json.dumps(message) + "\n")
        log.flush()
        return message

    def until(match: Any) -> dict[str, Any]:
        for i, message in enumerate(inbox):
            if match(message):
                return inbox.pop(i)
        while True:
            message = receive()
            if match(message):
                return message
            inbox.append(message)

    def write(*messages: dict[str, Any]) -> None:
        text = "".join(json.dumps(_session(m)) + "\n" for m in messages)
        sys.stdout.write(text)
        sys.stdout.flush()

    def answer(request: dict[str, Any], result: dict[str, Any]) -> None:
        write({"jsonrpc": "2.0", "id": request["id"], "result": result})

    answer(until(lambda m: m.get("method") == "initialize"), {"protocolVersion": 1, "agentCapabilities": {}})
    answer(until(lambda m: m.get("method") == "session/new"), {"sessionId": SESSION})
    for steps in turns:
        prompt = until(lambda m: m.get("method") == "session/prompt")
        reason = "end_turn"
        for step in steps:
            if "write" in step:
                write(*step["write"])
            elif "await" in step:
                until(lambda m, i=step["await"]: m.get("id") == i and "method" not in m)
            elif "on_cancel" in step:
                until(lambda m: m.get("method") == "session/cancel")
                write(*step["on_cancel"])
            elif "end" in step:
                reason = step["end"]
        answer(prompt, {"stopReason": reason})
    while True:
        receive()


def _session(message: Any) -> Any:
    if isinstance(message, dict):
        return {k: _session(v) for k, v in message.items()}
    if isinstance(message, list):
        return [_session(v) for v in message]
    return SESSION if message == "$SESSION" else message


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
