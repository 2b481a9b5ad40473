"""Stop during a long kernel run where comms do not get a subshell of their own.

JupyterLab sends a widget's comm messages on a subshell of their own (ipykernel 7), so a click reaches
the kernel while a cell is busy. VS Code and Colab send them on the main shell, as JupyterLab does with
its "Kernel Comms over subshells" setting disabled; Notebook 7 is the other front end people use. In
each, the person clicks Stop while Claude's code runs a busy loop that never sleeps (no point where a
signal check could land by luck) and then one that sleeps: the run ends within a second, the turn ends
"stopped", the kernel answers the next cell, and the history sent to the API afterwards is valid (the
scripted API refuses an invalid one).
"""

import pytest

from tests.support.lab import (
    PATIENT,
    Lab,
    comms_over_subshells,
    open_notebook,
    run_all,
    wait_for_file,
    wait_for_path,
    write_notebook,
)

pytestmark = pytest.mark.browser

SETUP = """
import asyncio, json, pathlib, time
import notebook_tools as nt
from notebook_tools import testing as t

SPIN_CODE = "open('spinning', 'w').close()\\nn = 0\\nwhile True:\\n    n += 1"
SLEEP_CODE = "import time\\nopen('sleeping', 'w').close()\\ntime.sleep(300)"
script = t.ScriptedTransport(
    t.turn(t.tool_use("run_code", {"code": SPIN_CODE, "purpose": "spin"}, id="k_spin")),
    t.turn(t.tool_use("run_code", {"code": SLEEP_CODE, "purpose": "wait"}, id="k_sleep")),
    t.reply("Still here."),
)
kernel = nt.KernelTools(approval="auto")
agent = nt.Agent(client=script.client(), plugins=[kernel])
chat = nt.Chat(agent)
chat
"""
SPIN = """
spin = await chat.send("Spin.")
"""
SLEEP = """
sleep = await chat.send("Wait.")
"""
AFTER = """
after = await chat.send("Are you there?")
manager = get_ipython().kernel.shell_channel_thread.manager
pathlib.Path("stopped.json").write_text(json.dumps({
    "stops": [spin.stop_reason, sleep.stop_reason, after.stop_reason],
    "took": [r["stop_took"] for r in kernel.ran],
    "subshells": manager.list_subshell(),
    "spun": n > 0,
}))
"""


def _stop_twice(browser, lab):
    """Run the notebook as a person would, Stop the spinning run, then the sleeping one; what the kernel
    wrote at the end, and the connection's comms-over-subshells mode."""
    for marker in ("spinning", "sleeping"):
        (lab.root / marker).unlink(missing_ok=True)
    write_notebook(lab.root / "stop.ipynb", [SETUP, SPIN, SLEEP, AFTER])
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    open_notebook(page, lab, "stop.ipynb")
    mode = page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.commsOverSubshells"
    )
    run_all(page)
    chat = page.locator(".nt-chat").first
    for marker, call in (("spinning", "k_spin"), ("sleeping", "k_sleep")):
        wait_for_path(lab.root / marker)  # Claude's code is running now
        page.locator(f'[data-tool-use-id="{call}"]').first.wait_for(timeout=PATIENT)
        chat.get_by_role("button", name="Stop the agent").click()
    result = wait_for_file(lab.root / "stopped.json")
    page.close()
    return mode, result


def _assert_stopped_within_a_second(result):
    assert result["stops"] == ["stopped", "stopped", "end_turn"], result
    assert result["spun"]  # the busy loop ran before it was stopped
    assert len(result["took"]) == 2 and all(t is not None and t < 1.0 for t in result["took"]), result


def test_stop_with_comms_over_subshells_disabled_in_jupyterlab(browser, lab):
    comms_over_subshells(lab, "disabled")  # read when the page loads
    mode, result = _stop_twice(browser, lab)
    assert mode == "disabled"
    assert result["subshells"] == []  # every comm message came on the main shell
    _assert_stopped_within_a_second(result)


def test_stop_in_notebook_7(browser, tmp_path):
    server = Lab(tmp_path, app="notebook")
    try:
        _, result = _stop_twice(browser, server)
    finally:
        server.close()
    _assert_stopped_within_a_second(result)
