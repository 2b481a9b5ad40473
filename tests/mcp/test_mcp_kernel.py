"""An MCP server in a real ipykernel: started lazily on the kernel's loop (whose `sys.stderr` has no
file descriptor), a long call running in the background leaves the kernel answering cells, and the
server process ends with the kernel."""

import pytest

from tests.mcp.servers import EVERYTHING, alive
from tests.support.kernel_client import KernelSession
from tests.support.readiness import wait_until

pytestmark = pytest.mark.kernel


def test_server_in_a_kernel_keeps_it_responsive_and_ends_with_it(tmp_path):
    kernel = KernelSession(cwd=str(tmp_path))
    try:
        kernel.execute(
            f"""
import asyncio, os
from pathlib import Path
import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.events import ToolProgress
server = nt.MCPServer.stdio({str(EVERYTHING)!r}, ["stdio"], name="everything")
script = t.ScriptedTransport(
    t.turn(t.tool_use("everything")),
    t.turn(t.tool_use("trigger-long-running-operation", {{"duration": 1.5, "steps": 3}})),
    t.reply("done"),
)
agent = nt.Agent(script.client(), mcp_servers=[server])
progress = []
agent.events.subscribe(lambda e: progress.append(e.progress) if isinstance(e, ToolProgress) else None)
turn = asyncio.ensure_future(agent.run("go"))
"""
        )
        # the turn runs on the kernel's loop; the kernel answers cells while the MCP call reports progress
        wait_until(lambda: kernel.value("len(progress)") > 0, "the first progress notification")
        assert kernel.value("turn.done()") is False and kernel.value("1 + 1") == 2
        pids = kernel.value(
            "[int(p.parent.name) for p in Path('/proc').glob('[0-9]*/stat') "
            "if int(p.read_text().rsplit(')', 1)[1].split()[1]) == os.getpid()]"
        )
        wait_until(lambda: kernel.value("turn.done()"), "the turn to end")
        assert kernel.value("turn.result().stop_reason") == "end_turn"
        assert kernel.value("progress[-1]") == 1.0
        assert pids and all(alive(p) for p in pids)
    finally:
        kernel.close()
    wait_until(lambda: not any(alive(p) for p in pids), "the server to end with the kernel", ceiling=30)
