"""What a person sees of the showcase: the tool bench of notebook 09, and a chat saved mid-turn.

- `09_tool_bench` run in JupyterLab displays its `nt.ToolBench`, and the figure its `plot_quotes` run
  returns shows as a picture (an `<img>` of PNG data), not as a wall of base64.
- A tool that needs approval waits in the bench for Approve or Deny; a denial never runs it.
- A notebook saved while a chat waits (one prompt answered, one open) keeps a static copy that says
  so; reopened with its kernel gone, or as an untrusted copy (a colleague's clone), it shows the
  transcript with the answer and no `<notebook_tools.Chat: ...>` line above it.
"""

import json
import shutil
import urllib.request
from pathlib import Path

import pytest

from tests.support.lab import PANEL, PATIENT, command, open_notebook, run_all, wait_for_path, write_notebook
from tests.support.readiness import wait_until

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1200, "height": 1400})
    yield page
    page.close()


def test_notebook_09_shows_its_bench_and_a_figure_as_a_picture(page, lab):
    shutil.copyfile(NOTEBOOKS / "09_tool_bench.ipynb", lab.root / "09_tool_bench.ipynb")
    open_notebook(page, lab, "09_tool_bench.ipynb")
    run_all(page)
    bench = page.locator(".nt-bench")
    bench.wait_for(timeout=PATIENT)
    names = bench.locator(".nt-bench-tool-name").all_text_contents()
    assert {"plot_quotes", "delete_cache", "scrape"} <= set(names)
    # the cell after the widget runs plot_quotes from code (maybe before the view rendered: it replays)
    image = bench.locator(".nt-bench-facing-box img.nt-bench-image")
    image.wait_for(timeout=PATIENT)
    assert image.get_attribute("src").startswith("data:image/png;base64,iVBORw0KGgo")
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 100", arg=image.element_handle())
    facing = bench.locator(".nt-bench-facing-box").inner_text()
    assert "A figure: ACME, last 30 days" in facing and "iVBORw0KGgo" not in facing
    assert "image/png" in bench.locator(".nt-bench-figure figcaption").inner_text()
    # the output's text/plain (nbval's) is not what the person sees: the widget is
    widget_cell = page.locator(".jp-Cell", has=page.locator(".nt-bench"))
    assert "<notebook_tools.ToolBench" not in widget_cell.locator(".jp-OutputArea").inner_text()


APPROVAL = '''
import pathlib
import notebook_tools as nt

@nt.tool(needs_approval=True)
def wipe(folder: str = "cache") -> str:
    """Wipe a folder (writes a marker instead).

    Args:
        folder: The folder.
    """
    pathlib.Path("wiped.txt").write_text(folder)
    return f"wiped {folder}"

bench = nt.ToolBench([wipe])
bench
'''


def test_the_bench_asks_before_a_tool_that_needs_approval_and_a_denial_never_runs_it(page, lab):
    write_notebook(lab.root / "approve.ipynb", [APPROVAL])
    open_notebook(page, lab, "approve.ipynb")
    run_all(page)
    bench = page.locator(".nt-bench")
    bench.wait_for(timeout=PATIENT)
    card = bench.get_by_role("group", name="Approval needed")
    assert card.is_hidden()

    bench.get_by_role("button", name="Execute").click()
    card.wait_for(timeout=PATIENT)
    assert "wipe needs your approval" in card.inner_text() and '"folder": "cache"' in card.inner_text()
    log = bench.locator(".nt-bench-log")
    log.locator('[data-kind="approval_required"]').wait_for()
    assert log.locator('[data-kind="tool_started"]').count() == 0
    assert not (lab.root / "wiped.txt").exists()  # asked, not run
    assert bench.get_by_role("button", name="Execute").is_disabled()

    card.get_by_role("button", name="Deny").click()
    log.locator('[data-kind="end"]').wait_for(timeout=PATIENT)
    assert card.is_hidden()
    assert (
        log.locator('[data-kind="denied"]').count() == 1
        and log.locator('[data-kind="tool_started"]').count() == 0
    )
    assert bench.locator(".nt-bench-facing").inner_text() == "The user denied this call."
    assert not (lab.root / "wiped.txt").exists()

    bench.get_by_role("button", name="Execute").click()
    card.get_by_role("button", name="Approve and run").click(timeout=PATIENT)
    assert wait_for_path_text(lab.root / "wiped.txt") == "cache"
    bench.locator(".nt-bench-facing", has_text="wiped cache").wait_for(timeout=PATIENT)
    assert log.locator('[data-kind="approved"]').count() == 1


def wait_for_path_text(path: Path) -> str:
    wait_for_path(path, timeout=30)
    return path.read_text()


MID_TURN = """
import notebook_tools as nt
from notebook_tools import testing as t

script = t.ScriptedTransport(
    t.turn(
        "Two questions first.",
        t.tool_use("user_confirm", {"message": "Shall I drop the 3 empty rows?"}, id="c1"),
        t.tool_use("ask_text", {"prompt": "Name of the report?"}, id="c2"),
    ),
    t.reply("Done."),
)
chat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm, nt.ask_text]))
chat
"""


def saved_outputs(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"][0]["outputs"]


def test_a_chat_saved_mid_turn_shows_its_answers_without_the_kernel(page, lab):
    write_notebook(lab.root / "mid_turn.ipynb", [MID_TURN, "result = await chat.send('Clean the data')"])
    open_notebook(page, lab, "mid_turn.ipynb")
    run_all(page)
    page.locator('section.nt-prompt[data-tool-use-id="c1"]').get_by_role("button", name="Yes").click(
        timeout=PATIENT
    )
    page.locator('section.nt-prompt[data-tool-use-id="c1"] .nt-answered').wait_for(timeout=PATIENT)
    # the copy in the page's model (what a save writes) has the answer before the turn ends
    page.wait_for_function(
        f"""() => {PANEL}.content.model.cells.get(0).outputs.toJSON()
            .some((o) => ((o.data || {{}})['text/html'] || '').includes('<b>Yes</b>'))""",
        timeout=PATIENT,
    )
    command(page, "docmanager:save")
    page.wait_for_function(f"() => !{PANEL}.context.model.dirty", timeout=PATIENT)
    kernel_id = page.evaluate(f"() => {PANEL}.sessionContext.session.kernel.id")

    outputs = saved_outputs(lab.root / "mid_turn.ipynb")
    view, copy = outputs[0], outputs[-1]
    assert "application/vnd.jupyter.widget-view+json" in view["data"] and "text/plain" not in view["data"]
    html = "".join(copy["data"]["text/html"])
    assert "Shall I drop the 3 empty rows?</p><p>→ <b>Yes</b>" in html
    assert "ask_text</b> <i>pending</i>" in html and "Name of the report?" in html  # still open

    # the kernel goes away (the cell still waits on the second prompt); the page comes back
    page.evaluate(f"() => {PANEL}.sessionContext.shutdown()")
    wait_until_gone(lab, kernel_id)
    page.reload()
    page.wait_for_function(f"() => window.jupyterapp && {PANEL}", timeout=PATIENT)
    shows_the_saved_transcript(page, trusted=True)  # saved by this JupyterLab: the widget renderer

    # a copy of the file as a colleague gets it (not signed here: untrusted, widgets do not load)
    clone = json.loads((lab.root / "mid_turn.ipynb").read_text())
    clone["metadata"]["cloned"] = True
    (lab.root / "mid_turn_clone.ipynb").write_text(json.dumps(clone))
    open_notebook(page, lab, "mid_turn_clone.ipynb")
    shows_the_saved_transcript(page, trusted=False)  # untrusted: the best safe type of each output


def shows_the_saved_transcript(page, trusted: bool):
    page.wait_for_function(f"() => {PANEL}.content.model.cells.get(0).trusted === {str(trusted).lower()}")
    # drawn by this project's JupyterLab extension (js/src/lab/): no view of the chat is live
    copy = page.locator(".jp-Cell").first.locator(".nt-copy-output .nt-static-transcript")
    copy.wait_for(timeout=PATIENT)
    text = copy.inner_text()
    assert "Shall I drop the 3 empty rows?" in text and "→ Yes" in text
    assert "ask_text pending" in text and "Name of the report?" in text
    outputs = page.locator(".jp-Cell").first.locator(".jp-OutputArea").inner_text()
    assert "<notebook_tools.Chat" not in outputs and "notebook_tools.Chat:" not in outputs


def wait_until_gone(lab, kernel_id: str) -> None:
    """Until the server lists the kernel no more, however long a loaded machine takes (the readiness ceiling)."""

    def gone() -> bool:
        with urllib.request.urlopen(f"{lab.base}/api/kernels?token={lab.token}", timeout=30) as reply:
            return kernel_id not in {k["id"] for k in json.loads(reply.read())}

    wait_until(gone, "the kernel to be shut down", poll=0.2)
