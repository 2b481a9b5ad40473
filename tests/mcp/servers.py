"""The real MCP servers the tests start: server-everything (npm, stdio and streamable HTTP),
mcp-server-time (PyPI) and the hostile server of this folder; each waited on for readiness."""

import asyncio
import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import notebook_tools as nt
from tests.support.readiness import wait_until

HERE = Path(__file__).resolve().parent
EVERYTHING = HERE / "node" / "node_modules" / ".bin" / "mcp-server-everything"
HOSTILE = HERE / "hostile_server.py"
XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def run_once(agent: nt.Agent, message: str = "go") -> nt.RunResult:
    """One run of `agent`, its MCP servers closed after."""

    async def go() -> nt.RunResult:
        try:
            return await agent.run(message)
        finally:
            await agent.aclose()

    return asyncio.run(go())


def app_cell(server_file: Path, server: str, tool: str, env: dict[str, str], done: str) -> str:
    """A notebook cell whose chat calls `tool` of the app server `server_file` (MCP name `server`,
    started with `env`), then writes the turn's stop reason to the JSON file `done`."""
    return f"""
import json
import notebook_tools as nt
from notebook_tools import testing as t

env = {{"PYTHONUNBUFFERED": "1", **{env!r}}}
server = nt.MCPServer.stdio({sys.executable!r}, [{str(server_file)!r}], env=env, name={server!r})
script = t.ScriptedTransport(
    t.turn(t.tool_use({server!r}, id="open")),
    t.turn(t.tool_use({tool!r}, {{}}, id="app")),
    t.reply("Here is the app."),
)
agent = nt.Agent(script.client(), model="claude-test", mcp_servers=[server])
chat = nt.Chat(agent)
display(chat)
r = await chat.send("Show the app")
json.dump(r.stop_reason, open({done!r}, "w"))
"""


def _installed() -> Path:
    assert EVERYTHING.exists(), (
        "tests/mcp/node is not installed: run ./dev check (its setup runs npm ci there)"
    )
    return EVERYTHING


def everything_stdio(**kw) -> nt.MCPServer:
    return nt.MCPServer.stdio(str(_installed()), ["stdio"], name="everything", **kw)


def time_server(**kw) -> nt.MCPServer:
    return nt.MCPServer.stdio(sys.executable, ["-m", "mcp_server_time"], name="time", **kw)


def hostile(**kw) -> nt.MCPServer:
    return nt.MCPServer.stdio(sys.executable, [str(HOSTILE)], env={"PYTHONUNBUFFERED": "1"}, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def everything_http():
    """server-everything's streamable HTTP mode on a free loopback port: yields its /mcp URL."""
    port = free_port()
    env = {**os.environ, "PORT": str(port), "HOST": "127.0.0.1"}
    proc = subprocess.Popen(
        [str(_installed()), "streamableHttp"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []

    def read():
        for line in proc.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_until(
            lambda: any(re.search(rf"listening on port {port}", line) for line in lines),
            "server-everything's HTTP mode to listen",
            alive=lambda: proc.poll() is None,
            log=lambda: "".join(lines),
        )
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
        reader.join(10)
        proc.stdout.close()


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def children() -> set[int]:
    """Processes whose parent is this one."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == os.getpid() and fields[0] != "Z":
                found.add(int(stat.parent.name))
    return found


def results(body):
    """The tool results of a request's last message, by tool_use_id: (is_error, content)."""
    return {
        b["tool_use_id"]: (bool(b.get("is_error")), b.get("content"))
        for b in body["messages"][-1]["content"]
        if b.get("type") == "tool_result"
    }


def text_of(content):
    return content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)
