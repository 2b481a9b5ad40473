"""An ACP agent in the chat, in real JupyterLab and Chromium: its card has no editor, survives a reload, and a click answers it.

The kernel drives Claude Code as a real ACP agent (`@agentclientprotocol/claude-agent-acp`, on the CLI
of the `claude-agent-sdk` wheel) through `nt.Chat(nt.ACPAgent(...))`; the agent runs offline against
the Messages API stand-in this test process serves on 127.0.0.1 (tests/support/acp_standin.py).
"""

import time

import pytest

pytest.importorskip("acp")
pytest.importorskip("claude_agent_sdk")

from notebook_tools import testing as t
from tests.browser.test_browser_reload import prompt, save_and_reload
from tests.support.acp_standin import AGENT, acp_standin, agent_command, agent_env
from tests.support.claude_code_standin import calls
from tests.support.lab import (
    PATIENT,
    open_notebook,
    run_all,
    save_widget_state,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser

SETUP = """
import json, pathlib
import notebook_tools as nt

agent = nt.ACPAgent({command!r}, cwd={project!r}, env={env!r})
chat = nt.Chat(agent)
chat
"""
TURN = """
result = await chat.send("Write after_reload.txt")
"""
REPORT = """
pathlib.Path("acp.json").write_text(json.dumps({
    "stop": result.stop_reason, "text": result.text, "decisions": [(n, k) for n, _, k in agent.decisions],
}))
await agent.close()
"""


def test_an_acp_card_has_no_editor_survives_a_reload_and_a_click_approves_it(browser, lab):
    assert AGENT.is_file(), "./dev installs the ACP test agent (tests/acp/node)"
    save_widget_state(lab)  # as a person who keeps widgets in saved notebooks (read when a page loads)
    project = lab.root / "acp_reload"
    project.mkdir()
    target = project / "after_reload.txt"
    (lab.root / "acp.json").unlink(missing_ok=True)
    write = t.tool_use("Write", {"file_path": str(target), "content": "kept\n"}, id="toolu_acp_reload")

    with acp_standin(calls(write), t.reply("Done.")) as server:
        setup = SETUP.format(command=agent_command(), project=str(project), env=agent_env(server))
        write_notebook(lab.root / "acp_reload.ipynb", [setup, TURN, REPORT])
        page = browser.new_page(viewport={"width": 1100, "height": 1200})
        open_notebook(page, lab, "acp_reload.ipynb")
        run_all(page)
        card = prompt(page, "toolu_acp_reload")
        card.get_by_role("button", name="Approve", exact=True).wait_for(timeout=PATIENT)
        assert card.get_by_role("button", name="Edit arguments").count() == 0  # ACP runs a call as asked
        assert "+kept" in card.locator(".nt-approval-shown").inner_text()  # the diff it will write

        started = save_and_reload(page)  # the cell still awaits the turn; the agent the card's answer
        again = prompt(page, "toolu_acp_reload")
        again.get_by_role("button", name="Approve", exact=True).wait_for(timeout=PATIENT)
        back = time.monotonic() - started
        assert not target.exists()
        assert again.get_by_role("button", name="Edit arguments").count() == 0
        again.get_by_role("button", name="Approve", exact=True).click()
        report = wait_for_file(lab.root / "acp.json")
        page.close()

    assert target.read_text() == "kept\n"
    assert report["decisions"] == [["Write", "allow_once"]], report
    assert report["stop"] == "end_turn" and report["text"].endswith("Done.")
    print(f"the ACP card was back {back:.1f} s after the reload")
