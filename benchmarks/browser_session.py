"""P15: a long restored session and a prompt in real JupyterLab and Debian's Chromium (issue 40).

- **First draw of a restored session**: a saved conversation of 1,000 messages (user questions,
  markdown answers, a tool call every tenth exchange) is rebuilt by `nt.Chat.resume` in a cell; from
  running the cell to the frame after the log shows the session's last message, against the same
  with a 10-message session (in-run baseline). Also measured: the main thread's busy time (Chromium's
  TaskDuration) and longest task over that time, the DOM nodes in the chat's view, and the DOM nodes
  of the static copy for saved notebooks that the page holds.
- **Prompt latency**: from the end of the model's `tool_use` block (the scripted transport stamps the
  moment its `content_block_stop` leaves for the SDK) to the first animation frame in which the card
  is in the page, against the same path for a bare anywidget whose trait the kernel sets (an echo).
  Kernel and page stamp wall-clock time on the same machine.

`python benchmarks/browser_session.py [--tree DIR] [--runs N]` prints the figures as JSON; `--tree` runs
the kernel on another checkout's `notebook_tools` (its widget built in DIR/notebook_tools/static), to
measure an earlier commit in the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.lab import PATIENT, Lab, open_notebook, write_notebook  # noqa: E402

PROMPTS = 20

SETUP = """
import asyncio, pathlib, tempfile, time
import anywidget, httpx2, traitlets
import notebook_tools as nt
from notebook_tools import testing as t
from notebook_tools.testing import _transport

folder = pathlib.Path(tempfile.mkdtemp())


def saved_session(messages):
    \"\"\"A store holding one conversation of `messages` messages; returns (store, agent_uuid).\"\"\"
    store = nt.SQLiteStore(folder / f"s{messages}.sqlite")
    state = nt.AgentState()
    m = state.messages
    i = 0
    while len(m) < messages - 2:
        m.append({"role": "user", "content": [{"type": "text", "text": f"Question {i}: how does step {i} of the analysis work, and what should I check?"}]})
        answer = (
            f"Step {i} reads the **input table** and keeps the rows where `value > {i}`.\\n\\n"
            f"- it drops missing values first\\n- then it groups by `region`\\n- and sums `amount`\\n\\n"
            f"Check that the totals match the report for quarter {i % 4 + 1}; a mismatch usually means "
            f"a duplicated row upstream. See [the guide](https://example.com/guide/{i}) for details."
        )
        if i % 10 == 9:
            m.append({"role": "assistant", "content": [{"type": "text", "text": "Let me look that up."}, {"type": "tool_use", "id": f"toolu_{i:04d}", "name": "lookup", "input": {"step": i}}]})
            m.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i:04d}", "content": f"step {i}: 1,204 rows, 3 columns"}]})
        m.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
        i += 1
    m.append({"role": "user", "content": [{"type": "text", "text": "Thanks, that is all."}]})
    m.append({"role": "assistant", "content": [{"type": "text", "text": f"End of session {messages}."}]})
    store.save(state)
    return store, state.agent_uuid


sessions = {n: saved_session(n) for n in (10, 1000)}


def restored(n):
    store, uuid = sessions[n]
    return nt.Chat.resume(uuid, agent=nt.Agent(client=t.ScriptedTransport().client(), store=store))


# Prompts: each turn calls user_confirm; the moment its tool_use block ends is stamped.
stop_at = []


class Stamped(httpx2.AsyncByteStream):
    def __init__(self, events, delay):
        self.events, self.delay = events, delay

    async def __aiter__(self):
        for event in self.events:
            await asyncio.sleep(self.delay)
            if b"content_block_stop" in event:
                stop_at.append(time.time())
            yield event


_transport._PacedStream = Stamped
N = @PROMPTS@
script = t.ScriptedTransport(*[t.turn(t.tool_use("user_confirm", {"message": f"q{i}"}, id=f"q{i}")) for i in range(N)], t.reply("done"), event_delay=0.002)
pchat = nt.Chat(nt.Agent(client=script.client(), frontend_tools=[nt.user_confirm], max_turns=N + 5))


class Echo(anywidget.AnyWidget):
    _esm = "export default { render({ model, el }) { const s = document.createElement('span'); s.className = 'echo'; el.append(s); model.on('change:value', () => { s.textContent = String(model.get('value')); }); } }"
    value = traitlets.Int(0).tag(sync=True)


echo = Echo()
echo_at = []


async def echoes():
    for i in range(N):
        await asyncio.sleep(0.15)
        echo_at.append(time.time())
        echo.value = i + 1
"""

# Run cell `index` and resolve, with the time it took, once its chat's log shows `last` drawn (two
# frames later: painted), plus the long tasks seen meanwhile.
FIRST_DRAW = """async ([index, last]) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cell = panel.content.widgets[index];
    const longs = [];
    const po = new PerformanceObserver((list) => { for (const e of list.getEntries()) longs.push(e.duration); });
    po.observe({type: 'longtask'});
    panel.content.activeCellIndex = index;
    const t0 = performance.now();
    window.jupyterapp.commands.execute('notebook:run-cell');
    await new Promise((done) => {
        const check = () => {
            const log = cell.node.querySelector('.nt-chat .nt-log');
            const end = log && log.lastElementChild;
            if (end && !end.classList.contains('nt-lazy') && end.textContent.includes(last))
                requestAnimationFrame(() => setTimeout(done, 0));
            else requestAnimationFrame(check);
        };
        check();
    });
    const took = performance.now() - t0;
    po.disconnect();
    const view = cell.node.querySelector('.nt-chat');
    let nodes = 0;
    const walker = document.createTreeWalker(view, NodeFilter.SHOW_ALL);
    while (walker.nextNode()) nodes++;
    return {took, longest: Math.max(0, ...longs), elements: view.querySelectorAll('*').length, nodes};
}"""

# The static copy the page holds for a chat, once the cell shows it: elements inside it.
COPY_NODES = """async (index) => {
    const cell = window.jupyterapp.shell.currentWidget.content.widgets[index];
    while (!cell.node.querySelector('[data-nt-chat]')) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 500));  // the view empties it at its next frame, if it does
    return Array.from(cell.node.querySelectorAll('[data-nt-chat]')).reduce((n, el) => n + el.querySelectorAll('*').length, 0);
}"""

CLEAR = """async () => {
    await window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs');
    while (document.querySelector('.nt-chat')) await new Promise((r) => setTimeout(r, 20));
}"""

# Each animation frame: the wall-clock time at which a pending card for q<i> (or echo value i) is first
# in the page; a card, once seen, is answered "yes" a little later.
PROBE = """() => {
    const p = window.__p = {cards: {}, echoes: {}, on: true};
    const frame = () => {
        if (!p.on) return;
        const now = Date.now();
        for (const card of document.querySelectorAll('.nt-chat section.nt-prompt.nt-pending')) {
            const m = card.textContent.match(/q(\\d+)/);
            if (m && !(m[1] in p.cards)) {
                p.cards[m[1]] = now;
                setTimeout(() => card.querySelector('button.nt-primary').click(), 100);
            }
        }
        const echo = document.querySelector('.echo');
        if (echo && echo.textContent && !(echo.textContent in p.echoes)) p.echoes[echo.textContent] = now;
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
}"""

VALUE = """async (name) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const reply = await kernel.requestExecute({code: '', silent: true, user_expressions: {x: name}}).done;
    return JSON.parse(reply.content.user_expressions.x.data['text/plain']);
}"""


def _say(what: str) -> None:
    print(f"[p15 {time.strftime('%H:%M:%S')}] {what}", file=sys.stderr, flush=True)


def _run_cell_and_wait(page: Any, index: int, until: str) -> None:
    page.evaluate(
        "(i) => { const p = window.jupyterapp.shell.currentWidget; p.content.activeCellIndex = i;"
        " window.jupyterapp.commands.execute('notebook:run-cell'); }",
        index,
    )
    page.wait_for_function(until, timeout=PATIENT)


def measure(runs: int = 3, tree: Path | None = None) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.support.lab import CHROMIUM_ARGS, chromium_path

    if tree is not None:
        os.environ["PYTHONPATH"] = f"{tree}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    cells = [
        SETUP.replace("@PROMPTS@", str(PROMPTS)),
        "restored(10)",
        "restored(1000)",
        "pchat",
        "echo",
        "await pchat.send('go')",
        "await echoes()",
    ]
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        lab = Lab(Path(folder))
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        try:
            write_notebook(Path(folder) / "bench.ipynb", cells)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            open_notebook(page, lab, "bench.ipynb")
            _say("notebook open; running the setup cell")
            # only the setup cell: the others are run one at a time below
            _run_cell_and_wait(
                page,
                0,
                "() => window.jupyterapp.shell.currentWidget.content.widgets[0].model.executionCount !== null",
            )
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")
            draws: dict[int, list[dict[str, Any]]] = {10: [], 1000: []}
            copies: dict[int, list[int]] = {10: [], 1000: []}
            for _ in range(runs):
                for n, index in ((10, 1), (1000, 2)):
                    page.evaluate(CLEAR)
                    before = _busy(cdp)
                    draw = page.evaluate(FIRST_DRAW, [index, f"End of session {n}."])
                    draw["busy"] = (_busy(cdp) - before) * 1000
                    draws[n].append(draw)
                    copies[n].append(page.evaluate(COPY_NODES, index))
                    _say(f"{n} messages: {draw}, copy {copies[n][-1]} elements")
            page.evaluate(CLEAR)
            # prompts and echoes
            for index in (3, 4):
                _run_cell_and_wait(
                    page,
                    index,
                    f"() => window.jupyterapp.shell.currentWidget.content.widgets[{index}].node.querySelector('.nt-chat, .echo')",
                )
            _say("prompts")
            page.evaluate(PROBE)
            _run_cell_and_wait(
                page,
                5,
                f"() => Object.keys(window.__p.cards).length >= {PROMPTS} && window.jupyterapp.shell.currentWidget.content.widgets[5].model.executionCount !== null",
            )
            _run_cell_and_wait(page, 6, f"() => Object.keys(window.__p.echoes).length >= {PROMPTS}")
            cards, echo_seen = page.evaluate("() => [window.__p.cards, window.__p.echoes]")
            stops, echo_sent = page.evaluate(VALUE, "stop_at"), page.evaluate(VALUE, "echo_at")
        finally:
            browser.close()
            lab.close()

    prompt_ms = [cards[str(i)] - stops[i] * 1000 for i in range(PROMPTS)]
    echo_ms = [echo_seen[str(i + 1)] - echo_sent[i] * 1000 for i in range(PROMPTS)]

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    return {
        "runs": runs,
        "first_draw_ms": med([d["took"] for d in draws[1000]]),
        "first_draw_10_ms": med([d["took"] for d in draws[10]]),
        "busy_ms": med([d["busy"] for d in draws[1000]]),
        "busy_10_ms": med([d["busy"] for d in draws[10]]),
        "longest_task_ms": med([d["longest"] for d in draws[1000]]),
        "view_elements": med([d["elements"] for d in draws[1000]]),
        "view_nodes": med([d["nodes"] for d in draws[1000]]),
        "view_elements_10": med([d["elements"] for d in draws[10]]),
        "copy_elements": med([float(c) for c in copies[1000]]),
        "prompt_median_ms": med(prompt_ms),
        "prompt_max_ms": max(prompt_ms),
        "echo_median_ms": med(echo_ms),
        "prompts": PROMPTS,
    }


def _busy(cdp: Any) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=None)
    args = parser.parse_args()
    print(json.dumps(measure(args.runs, args.tree), indent=1))
