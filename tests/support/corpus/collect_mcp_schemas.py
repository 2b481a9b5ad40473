"""Write the tool input schemas published by MCP servers into js/test-corpus/ (the form engine's corpus).

Each server is started as its own package ships it and asked over stdio (JSON-RPC: initialize,
notifications/initialized, tools/list); nothing is guessed from its source. Usage:

    python tests/support/corpus/collect_mcp_schemas.py NAME "SOURCE NOTE" -- COMMAND [ARGS...]

e.g. `... mcp-server-time "PyPI mcp-server-time 2025.x" -- /tmp/mcpenv/bin/mcp-server-time`.
"""

import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[3] / "js" / "test-corpus"


def ask(command: list[str]) -> list[dict]:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "corpus", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdin and proc.stdout
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        if "id" in message:
            while True:
                reply = json.loads(proc.stdout.readline())
                if reply.get("id") == message["id"]:
                    break
    proc.kill()
    return reply["result"]["tools"]


def main() -> None:
    name, source = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1 :]
    for tool in ask(command):
        path = OUT / f"mcp-{name}-{tool['name']}.json"
        path.write_text(
            json.dumps({"source": source, "tool": tool["name"], "schema": tool["inputSchema"]}, indent=1)
            + "\n"
        )
        print(path.name)


if __name__ == "__main__":
    main()
