"""P14: a long reply streaming in real JupyterLab and Debian's Chromium (issue 40).

A 50,000-character markdown reply (paragraphs, lists, code, tables) comes from the scripted model in
2,500 text deltas of 20 characters, paced like a network (8 ms apart); the kernel sends them to the page
as it does (at most one delta message every 100 ms). Measured in the page, with in-run baselines:

- main-thread busy time while it streams (Chromium's TaskDuration over the stream, from the DevTools
  protocol) against the same reply drawn once (the same chat pipeline, the reply in one delta);
- frames over 50 ms while it streams (long animation frames, as Chromium reports them);
- key-to-paint while typing into a notebook cell during the stream, against typing with nothing
  streaming (keydown's timestamp to the task after the next animation frame);
- JupyterLab's floor for the same messages: main-thread busy time while the kernel sets a bare
  anywidget's trait ten times a second (the rate the chat sends streamed text at) for as long as the
  stream took, its view writing the number into a span. What a page pays per message and per frame
  whatever the widget draws (the websocket message, the widget manager, a frame's style, layout,
  paint and compositing of the notebook); the stream's own cost is what it takes beyond it.

`python benchmarks/browser_stream.py [--tree DIR] [--runs N]` prints the figures as JSON; `--tree` runs
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

from tests.support.lab import PATIENT, Lab, open_notebook, run_all, write_notebook  # noqa: E402

SETUP = """
import notebook_tools as nt
from notebook_tools import testing as t

parts, i = [], 0
while sum(map(len, parts)) < 50_000:
    parts.append([
        f"Paragraph {{i}} explains *one thing* and **another**, with `code` and a [link](https://example.com/{{i}}).\\nIt goes on for a second line, as replies do.\\n\\n",
        f"- item {{i}}\\n- an item with **bold**\\n  continued\\n\\n",
        f"```python\\nfor k in range({{i}}):\\n    print(k)\\n```\\n\\n",
        f"| col | value |\\n|---|---|\\n| a | {{i}} |\\n| b | {{i * 2}} |\\n\\n",
        f"### Heading {{i}}\\n\\n> a quote\\n> on two lines\\n\\n",
    ][i % 5])
    i += 1
REPLY = "".join(parts)[:50_000] + "\\n\\nThe end."
streamed = nt.Chat(nt.Agent(client=t.ScriptedTransport(*[t.reply(REPLY)] * {runs} * 2, text_chunk=20, event_delay=0.008).client()))
once = nt.Chat(nt.Agent(client=t.ScriptedTransport(*[t.reply(REPLY)] * {runs}, text_chunk=len(REPLY) + 1).client()))
display(streamed, once)

import anywidget, asyncio, traitlets


class Ticker(anywidget.AnyWidget):
    _esm = "export default {{ render({{ model, el }}) {{ const s = document.createElement('span'); s.className = 'bench-ticker'; el.append(s); model.on('change:value', () => {{ s.textContent = String(model.get('value')); }}); }} }}"
    value = traitlets.Int(0).tag(sync=True)


ticker = Ticker()
display(ticker)


async def tick(n):
    for i in range(n):
        await asyncio.sleep(0.1)
        ticker.value = i + 1
"""

# Long animation frames (over 50 ms: Chromium's Long Animation Frames API, no probe of our own
# keeping the page drawing frames) and key-to-paint samples, collected in the page between start()
# and stop(). An earlier probe counted requestAnimationFrame intervals: its frame loop kept the page
# drawing 60 frames a second, which cost the page 0.08 s a second (1.7 s of a 22 s stream) that the
# drawn-once baseline, over in a second, hardly paid.
PROBE = """() => {
    if (window.__probe) return;
    const p = window.__probe = {on: false, frames: [], keys: []};
    new PerformanceObserver((list) => {
        if (p.on) for (const f of list.getEntries()) p.frames.push(f.duration);
    }).observe({type: 'long-animation-frame'});
    document.addEventListener('keydown', (e) => {
        if (!p.on) return;
        const t0 = e.timeStamp;
        requestAnimationFrame(() => setTimeout(() => p.keys.push(performance.now() - t0)));
    }, true);
}"""
START = "() => { Object.assign(window.__probe, {on: true, frames: [], keys: []}); }"
STOP = (
    "() => { window.__probe.on = false; return {frames: window.__probe.frames, keys: window.__probe.keys}; }"
)
EXECUTE = """(code) => { window.__run = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel
    .requestExecute({code}).done; }"""
# Whether the chat's newest reply, one that was not there when the turn began (MARK), shows its last
# paragraph, "The end." (its last block only: reading the whole reply's text every 20 ms would cost the
# page more than some of what is measured). Earlier replies may be drawn as placeholders by now (a
# long log draws only what is near sight), so replies are not counted.
MARK = "(chat) => { for (const r of document.querySelectorAll('.nt-chat')[chat].querySelectorAll('.nt-assistant')) r.dataset.benchSeen = '1'; }"
ENDED = """(chat) => {
    const replies = document.querySelectorAll('.nt-chat')[chat].querySelectorAll('.nt-assistant');
    const reply = replies[replies.length - 1];
    let last = reply && !reply.dataset.benchSeen ? reply.querySelector('.nt-md')?.lastElementChild : null;
    if (last && last.classList.contains('nt-md-part')) last = last.lastElementChild;  // a group of blocks
    return Boolean(last && last.textContent.trim().endsWith('The end.'));
}"""
# The same, awaited in the page, and drawn (two frames after it shows).
DRAWN = f"""(args) => new Promise((done) => {{
    const ended = {ENDED};
    const check = () => {{
        if (ended(args)) requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
        else setTimeout(check, 20);
    }};
    check();
}})"""


def _say(what: str) -> None:
    print(f"[p14 {time.strftime('%H:%M:%S')}] {what}", file=sys.stderr, flush=True)


def _busy(cdp: Any) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def _turn(page: Any, cdp: Any, chat: str, index: int, n: int, typing: bool = False) -> dict[str, Any]:
    """Send one message to `chat` (0: streamed, 1: once; its `n`th turn) and measure until its reply is drawn."""
    page.evaluate(MARK, index)
    page.evaluate(START)
    before = _busy(cdp)
    began = time.perf_counter()
    page.evaluate(EXECUTE, f"await {chat}.send('Go')")
    if typing:
        page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".cm-content").click()
        # type until the reply is drawn: ten keys at a time, 60 ms apart, as a person types
        while not page.evaluate(ENDED, index):
            page.keyboard.type("abcdefghij", delay=60)
    page.evaluate(DRAWN, index)
    took = time.perf_counter() - began
    busy = _busy(cdp) - before
    probe = page.evaluate(STOP)
    page.evaluate("() => window.__run.then(() => true)")  # the cell's turn is over before the next one starts
    _say(f"{chat} turn {n}{' (typing)' if typing else ''}: busy {busy:.2f} s over {took:.1f} s")
    return {"busy_s": busy, "wall_s": took, **probe}


def _floor(page: Any, cdp: Any, seconds: float) -> float:
    """Main-thread busy time while the ticker's trait changes ten times a second for `seconds`."""
    ticks = round(seconds * 10)
    before = _busy(cdp)
    page.evaluate(EXECUTE, f"await tick({ticks})")
    page.evaluate("() => window.__run.then(() => true)")
    page.wait_for_function(  # the view drew the last one
        "(n) => document.querySelector('.bench-ticker')?.textContent === String(n)",
        arg=ticks,
        timeout=PATIENT,
    )
    busy = _busy(cdp) - before
    _say(f"floor: busy {busy:.2f} s over {seconds:.1f} s")
    return busy


def _typing_idle(page: Any, keys: int = 60) -> list[float]:
    page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".cm-content").click()
    page.evaluate(START)
    page.keyboard.type("x" * keys, delay=60)
    page.wait_for_timeout(300)  # the last keys' samples come after their frame (a measurement, not a test)
    return page.evaluate(STOP)["keys"]


def measure(runs: int = 1, tree: Path | None = None) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.support.lab import CHROMIUM_ARGS, chromium_path

    if tree is not None:
        os.environ["PYTHONPATH"] = f"{tree}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        lab = Lab(Path(folder))
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        try:
            write_notebook(Path(folder) / "bench.ipynb", [SETUP.format(runs=runs), "# type here\n"])
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            open_notebook(page, lab, "bench.ipynb")
            run_all(page)
            page.locator(".nt-chat").nth(1).wait_for(timeout=PATIENT)
            page.evaluate(PROBE)
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")
            _say("notebook open")
            idle_keys = _typing_idle(page)
            _say(f"typed {len(idle_keys)} keys with nothing streaming")
            once, streamed, typed, floor = [], [], [], []
            for k in range(1, runs + 1):
                once.append(_turn(page, cdp, "once", 1, k))
                streamed.append(_turn(page, cdp, "streamed", 0, 2 * k - 1))
                floor.append(_floor(page, cdp, streamed[-1]["wall_s"]))
                typed.append(_turn(page, cdp, "streamed", 0, 2 * k, typing=True))
        finally:
            browser.close()
            lab.close()

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    keys = [v for run in typed for v in run["keys"]]
    return {
        "runs": runs,
        "stream_busy_s": med([r["busy_s"] for r in streamed]),
        "once_busy_s": med([r["busy_s"] for r in once]),
        "floor_busy_s": med(floor),
        "stream_wall_s": med([r["wall_s"] for r in streamed]),
        "frames_over_50ms": med([sum(f > 50 for f in r["frames"]) for r in streamed]),
        "long_frames_ms": med([sum(r["frames"]) for r in streamed]),
        "key_to_paint_median_ms": med(keys),
        "key_to_paint_max_ms": max(keys) if keys else float("nan"),
        "keys_over_100ms": sum(k > 100 for k in keys),
        "keys": len(keys),
        "key_to_paint_idle_median_ms": med(idle_keys),
        "key_to_paint_idle_max_ms": max(idle_keys) if idle_keys else float("nan"),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tree", type=Path, default=None)
    args = parser.parse_args()
    print(json.dumps(measure(args.runs, args.tree), indent=1))
