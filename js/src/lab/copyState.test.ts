// When the JupyterLab extension draws a chat's static copy (jsdom; in real JupyterLab,
// tests/browser/test_browser_static.py and test_browser_showcase.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { copyChat, copyState, drawing, otherOutputs, settles, viewsSay } from "./copyState";
import { staticCopy } from "../chat/staticCopy";

const ID = "0123456789abcdef0123456789abcdef";

/** An output area as JupyterLab draws it: the widget's output (holding `widget`), then the copy's. */
function page(widget: string): { doc: Document; others: Element[]; area: Element; own: Element } {
  const doc = new JSDOM(`<!doctype html><html><head></head><body>
    <div class="jp-OutputArea">
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-prompt"></div><div class="lm-Panel jp-OutputArea-output">${widget}</div></div>
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-prompt"></div><div class="nt-copy-output jp-OutputArea-output" id="own"></div></div>
    </div></body></html>`).window.document;
  const area = doc.querySelector(".jp-OutputArea")!;
  const own = doc.getElementById("own")!;
  return { doc, area, own, others: otherOutputs(area, own) };
}

test("copyChat: only nt-chat-<hex> names a chat", () => {
  assert.equal(copyChat(`nt-chat-${ID}`), ID);
  assert.equal(copyChat(`nt-chat-${ID}\n`), ID);
  for (const bad of [undefined, null, 3, ["nt-chat-" + ID], `nt-chat-${ID}"] *`, "nt-chat-ABCDEF012345", "nt-chat-abc", `x nt-chat-${ID}`]) {
    assert.equal(copyChat(bad), null, String(bad));
  }
});

test("the other outputs are the area's rows but the copy's own, not what is inside them", () => {
  const { area, own, others } = page(`<div class="jp-OutputArea"><div class="jp-OutputArea-child"><div class="jp-OutputArea-output">nested</div></div></div>`);
  assert.equal(others.length, 1);
  assert.ok(!others.includes(own));
  assert.equal(otherOutputs(null, own).length, 0);
  assert.equal(otherOutputs(area, null).length, 2);
});

test("a copy beside an output still being drawn waits; one with no chat or nothing beside it is drawn", () => {
  for (const widget of ["", "Loading widget..."]) {
    const { doc, others } = page(widget);
    assert.equal(drawing(others[0]), true);
    assert.equal(settles(doc, others, ID), false);
    assert.equal(copyState(doc, others, ID, false), "pending", widget);
    assert.equal(copyState(doc, others, null, false), "free");
    assert.equal(copyState(doc, [], ID, false), "free", "no output beside it: nothing is coming");
    assert.equal(copyState(doc, others, ID, true), "free", "settled: the empty output is a view that went");
  }
  // the widget output drew an error (no kernel, or the model is gone): settled, drawn
  const error = page("Error displaying widget: model not found");
  error.others[0].classList.add("jupyter-widgets");
  assert.equal(settles(error.doc, error.others, ID), true);
  assert.equal(copyState(error.doc, error.others, ID, false), "free");
  // a view that went: JupyterLab hides its output, empty
  const gone = page("");
  gone.others[0].classList.add("lm-mod-hidden");
  assert.equal(copyState(gone.doc, gone.others, ID, false), "free");
  // another kind of output beside the copy (printed text) is no widget on its way
  const printed = page("<pre>printed</pre>");
  assert.equal(copyState(printed.doc, printed.others, ID, false), "free");
});

test("a view in the page that has not started yet holds the copy back", () => {
  const { doc, others } = page(`<div class="lm-Widget nt-chat-${ID}"></div>`);
  assert.equal(settles(doc, others, ID), true);
  assert.equal(copyState(doc, others, ID, true), "pending");
  assert.equal(copyState(doc, others, "ffffffffffffffff", true), "free", "another chat's view says nothing of this one");
});

test("the view's word decides: waiting, then shown; a view that goes leaves the copy drawn", () => {
  const { doc, others } = page(`<div class="lm-Widget nt-chat-${ID}"></div>`);
  const view = staticCopy([`nt-chat-${ID}`], doc);
  assert.equal(viewsSay(doc, ID), "waiting");
  assert.equal(copyState(doc, others, ID, true), "pending");
  view.hide();
  assert.equal(viewsSay(doc, ID), "hidden");
  assert.equal(copyState(doc, others, ID, true), "live");
  view.dispose();
  doc.querySelector(`.nt-chat-${ID}`)!.remove(); // JupyterLab takes the view's element out with it
  assert.equal(viewsSay(doc, ID), null);
  assert.equal(copyState(doc, otherOutputs(doc.querySelector(".jp-OutputArea"), doc.getElementById("own")), ID, true), "free");
});

test("a view whose kernel went before the transcript frees the copy, though it stays; one that shows it wins", () => {
  const { doc, others } = page(`<div class="lm-Widget nt-chat-${ID}"></div>`);
  const first = staticCopy([`nt-chat-${ID}`], doc);
  first.release();
  assert.equal(viewsSay(doc, ID), "released");
  assert.equal(copyState(doc, others, ID, true), "free", "its element is still there, showing why it is gone");
  const second = staticCopy([`nt-chat-${ID}`], doc);
  assert.equal(copyState(doc, others, ID, true), "pending", "the second waits");
  second.hide();
  assert.equal(copyState(doc, others, ID, true), "live");
  second.dispose();
  first.dispose();
  assert.equal(viewsSay(doc, ID), null);
});
