"""Claude Code in the chat, in real JupyterLab and Chromium: its permission cards answered by clicks.

The kernel drives the real Claude Code CLI (from the `claude-agent-sdk` wheel) through `nt.Chat(nt.ClaudeCode(...))`;
the CLI runs offline against the Messages API stand-in this test process serves on 127.0.0.1 (its URL
and the CLI's temporary home are written into the cell). The stand-in scripts two Write calls: the
person approves the first in its card and denies the second with a reason. The first file is on
disk, the second is not, and the model was told the reason.
"""

import json
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("claude_agent_sdk")

from notebook_tools import testing as t
from tests.support.claude_code_standin import MODEL, calls, offline_env, standin
from tests.support.lab import (
    ARTIFACTS,
    PATIENT,
    command,
    open_notebook,
    run_all,
    save_widget_state,
    set_theme,
    wait_for_file,
    write_notebook,
)

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

SETUP = """
import json, pathlib
import notebook_tools as nt
from claude_agent_sdk import ClaudeAgentOptions

claude = nt.ClaudeCode(cwd={project!r}, options=ClaudeAgentOptions(model={model!r}, env={env!r}))
chat = nt.Chat(claude)
chat
"""
TURN = """
result = await chat.send("Write approved.txt, then denied.txt")
"""
REPORT = """
pathlib.Path("claude_code.json").write_text(json.dumps({
    "stop": result.stop_reason, "text": result.text, "session": claude.session_id,
    "decisions": [(name, r.behavior) for name, _, r in claude.decisions],
}))
await claude.close()
"""


def card(page, tool_use_id):
    return page.locator(f'section.nt-prompt[data-tool-use-id="{tool_use_id}"]')


def test_approve_one_write_and_deny_another_with_a_reason(browser, lab):
    project = lab.root / "cc_project"
    project.mkdir()
    approved, denied = project / "approved.txt", project / "denied.txt"
    first = t.tool_use("Write", {"file_path": str(approved), "content": "yes\n"}, id="toolu_cc_yes")
    second = t.tool_use("Write", {"file_path": str(denied), "content": "no\n"}, id="toolu_cc_no")

    with standin(calls(first, text="Writing the files."), calls(second), t.reply("Done.")) as server:
        env = offline_env(server.base_url, server.home)
        setup = SETUP.format(project=str(project), model=MODEL, env=env)
        write_notebook(lab.root / "claude_code.ipynb", [setup, TURN, REPORT])
        page = browser.new_page(viewport={"width": 1100, "height": 1200})
        open_notebook(page, lab, "claude_code.ipynb")
        run_all(page)

        yes = card(page, "toolu_cc_yes")
        yes.get_by_role("button", name="Approve", exact=True).wait_for(timeout=PATIENT)
        assert "wants to use Write: approved.txt" in yes.inner_text()
        # what will be written, as a diff from nothing, line by line; added lines tinted (and keeping their "+")
        preview = yes.locator("pre.nt-approval-preview")
        lines = preview.locator(".nt-preview-line").all_inner_texts()
        assert lines == ["--- /dev/null", f"+++ {approved}", "@@ -0,0 +1 @@", "+yes"], lines
        added = preview.locator(".nt-diff-add").evaluate("e => getComputedStyle(e).backgroundColor")
        assert added not in ("rgba(0, 0, 0, 0)", "transparent"), added
        # the arguments, which repeat it as escaped JSON, are folded under the preview: one click shows them
        more = yes.locator("details.nt-approval-args-more")
        assert more.get_attribute("open") is None
        more.locator("summary").click()
        assert '"content": "yes\\n"' in more.locator(".nt-approval-args").inner_text()
        assert not approved.exists()
        yes.get_by_role("button", name="Approve", exact=True).click()

        no = card(page, "toolu_cc_no")
        no.get_by_role("button", name="Deny").wait_for(timeout=PATIENT)
        assert approved.read_text() == "yes\n"  # the first call ran once approved
        no.get_by_label("Reason for denying").fill("Only the first file, please.")
        no.get_by_role("button", name="Deny").click()

        report = wait_for_file(lab.root / "claude_code.json")
        chat = page.locator(".nt-chat").first
        chat.get_by_text("Done.").first.wait_for(timeout=PATIENT)  # the CLI's last text in the transcript
        shown = chat.inner_text()
        said, is_error = server.said_to_model("toolu_cc_no")
        page.close()

    assert not denied.exists()
    assert is_error and "Only the first file, please." in said
    assert report["stop"] == "end_turn" and report["text"] == "Done.", report
    assert report["decisions"] == [["Write", "allow"], ["Write", "deny"]], report
    assert "Writing the files." in shown
    print(json.dumps(report))


def test_a_card_is_still_there_after_a_reload_and_its_approval_writes(browser, lab):
    save_widget_state(lab)  # as a person who keeps widgets in saved notebooks (read when a page loads)
    project = lab.root / "cc_reload"
    project.mkdir()
    target = project / "after_reload.txt"
    (lab.root / "claude_code.json").unlink(missing_ok=True)  # the other test's report
    write = t.tool_use("Write", {"file_path": str(target), "content": "kept\n"}, id="toolu_cc_reload")

    with standin(calls(write), t.reply("Done.")) as server:
        env = offline_env(server.base_url, server.home)
        setup = SETUP.format(project=str(project), model=MODEL, env=env)
        write_notebook(lab.root / "claude_code_reload.ipynb", [setup, TURN, REPORT])
        page = browser.new_page(viewport={"width": 1100, "height": 1200})
        open_notebook(page, lab, "claude_code_reload.ipynb")
        run_all(page)
        card(page, "toolu_cc_reload").get_by_role("button", name="Approve", exact=True).wait_for(
            timeout=PATIENT
        )

        command(page, "docmanager:save")
        page.wait_for_function(
            "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=PATIENT
        )
        page.reload()  # the cell still awaits the turn; the CLI still waits for the card's answer
        started = time.monotonic()
        again = card(page, "toolu_cc_reload").get_by_role("button", name="Approve", exact=True)
        again.wait_for(timeout=PATIENT)
        back = time.monotonic() - started
        assert not target.exists()
        again.click()
        report = wait_for_file(lab.root / "claude_code.json")
        page.close()

    assert target.read_text() == "kept\n"
    assert report["decisions"] == [["Write", "allow"]], report
    print(f"the Claude Code card was back {back:.1f} s after the reload")


CONTRAST = """(el) => {
  // WCAG contrast of the element's text on the first opaque background behind it (tints blended in)
  const rgba = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const bg = rgba(getComputedStyle(e).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let [r, g, b] = [255, 255, 255];
  for (const [lr, lg, lb, a] of layers.reverse()) [r, g, b] = [lr * a + r * (1 - a), lg * a + g * (1 - a), lb * a + b * (1 - a)];
  const lum = ([x, y, z]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(x) + 0.7152 * f(y) + 0.0722 * f(z); };
  const fg = rgba(getComputedStyle(el).color);
  const [l1, l2] = [lum(fg), lum([r, g, b])].sort((p, q) => q - p);
  return (l1 + 0.05) / (l2 + 0.05);
}"""


def test_edit_always_and_questions_by_clicks_in_light_and_dark(browser, lab):
    """The cards as a person meets them: a Bash edited before it runs, "always" for `mkdir` (the second
    is not asked), two AskUserQuestion questions answered (one multi-select); the cards read in both themes."""
    project = lab.root / "cc_cards"
    project.mkdir()
    (lab.root / "claude_code.json").unlink(missing_ok=True)
    edit = t.tool_use(
        "Bash", {"command": "touch from_model.txt", "description": "make a file"}, id="toolu_cc_edit"
    )
    one = t.tool_use("Bash", {"command": "mkdir one", "description": "a folder"}, id="toolu_cc_one")
    two = t.tool_use("Bash", {"command": "mkdir two", "description": "another"}, id="toolu_cc_two")
    questions = {
        "questions": [
            {"question": "Which color?", "header": "Color", "multiSelect": False,
             "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]},
            {"question": "Which sizes?", "header": "Sizes", "multiSelect": True,
             "options": [{"label": "S", "description": "small"}, {"label": "M", "description": "medium"},
                         {"label": "L", "description": "large"}]},
        ]
    }  # fmt: skip
    ask = t.tool_use("AskUserQuestion", questions, id="toolu_cc_ask")
    steps = (calls(edit), calls(one), calls(two), calls(ask), t.reply("Done."))

    with standin(*steps) as server:
        env = offline_env(server.base_url, server.home)
        setup = SETUP.format(project=str(project), model=MODEL, env=env)
        write_notebook(lab.root / "claude_code_cards.ipynb", [setup, TURN, REPORT])
        page = browser.new_page(viewport={"width": 1100, "height": 1400})
        open_notebook(page, lab, "claude_code_cards.ipynb")
        set_theme(page, dark=False)
        run_all(page)
        ARTIFACTS.mkdir(exist_ok=True)

        # edit: the model's command shown, changed in the form, the person's runs
        bash = card(page, "toolu_cc_edit")
        bash.get_by_role("button", name="Edit arguments").wait_for(timeout=PATIENT)
        preview = bash.locator("pre.nt-approval-preview")
        assert preview.inner_text().strip() == "$ touch from_model.txt"
        for dark in (False, True):  # the command and the buttons read in both themes
            set_theme(page, dark=dark)
            shot = f"claude-code-card-{'dark' if dark else 'light'}.png"
            bash.screenshot(path=str(ARTIFACTS / shot))
            shutil.copy(ARTIFACTS / shot, DOCS / shot)  # the Claude Code guide shows these
            for part in (
                preview.locator(".nt-preview-line").first,
                bash.get_by_role("button", name="Approve"),
            ):
                ratio = part.evaluate(CONTRAST)
                assert ratio >= 4.5, (dark, ratio)
        bash.get_by_role("button", name="Edit arguments").click()
        field = bash.locator("input#nt-edit-toolu_cc_edit-command")
        assert field.input_value() == "touch from_model.txt"
        field.fill("touch from_person.txt")
        bash.get_by_role("button", name="Approve with these arguments").click()

        # always: what it covers is offered by the CLI's own suggestion; the second mkdir is not asked
        first = card(page, "toolu_cc_one")
        first.get_by_role("button", name="Approve", exact=True).wait_for(timeout=PATIENT)
        remember = first.get_by_label("Remember this decision")
        scope = remember.locator('option[value="scope"]').inner_text()
        assert "Bash(mkdir one *)" in scope, scope  # the CLI's own rule, in words
        remember.select_option(value="scope")
        first.get_by_role("button", name="Approve", exact=True).click()

        # the questions: both open at once, the sizes a multi-select
        color = page.locator("section.nt-prompt.nt-pending", has_text="Which color?")
        sizes = page.locator("section.nt-prompt.nt-pending", has_text="Which sizes?")
        sizes.get_by_role("checkbox", name="L").wait_for(timeout=PATIENT)
        color.wait_for(timeout=PATIENT)
        sizes.get_by_role("checkbox", name="S").check()
        sizes.get_by_role("checkbox", name="L").check()
        sizes.get_by_role("button", name="Submit").click()
        color.get_by_role("radio", name="Blue").check()
        color.screenshot(path=str(ARTIFACTS / "claude-code-question-dark.png"))
        color.get_by_role("button", name="Submit").click()

        report = wait_for_file(lab.root / "claude_code.json")
        page.locator(".nt-chat").first.get_by_text("Done.").first.wait_for(timeout=PATIENT)
        set_theme(page, dark=False)
        page.close()
        said, _ = server.said_to_model("toolu_cc_ask")

    assert (project / "from_person.txt").exists() and not (project / "from_model.txt").exists()
    assert (project / "one").is_dir() and (project / "two").is_dir()
    # asked: the edited Bash, the first mkdir, the question; the second mkdir ran on the "always" rule
    assert report["decisions"] == [["Bash", "allow"], ["Bash", "allow"], ["AskUserQuestion", "allow"]], report
    assert report["stop"] == "end_turn" and report["text"] == "Done.", report
    assert "Blue" in said and "S, L" in said, said
