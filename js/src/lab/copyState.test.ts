// When the JupyterLab extension draws a chat's static copy (jsdom; in real JupyterLab,
// tests/browser/test_browser_static.py and test_browser_showcase.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { copyChat, copyState, viewOutput, viewsSay } from "./copyState";
import { staticCopy } from "../chat/staticCopy";

const ID = "0123456789abcdef0123456789abcdef";

/** An output area as JupyterLab draws it: the view's output (holding `view`), then the copy's. */
function page(view: string, viewClass = ""): { doc: Document; before: Element | null } {
  const doc = new JSDOM(`<!doctype html><html><head></head><body>
    <div class="jp-OutputArea">
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-prompt"></div><div class="lm-Panel jp-OutputArea-output ${viewClass}">${view}</div></div>
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-prompt"></div><div class="nt-copy-output jp-OutputArea-output" id="own"></div></div>
    </div></body></html>`).window.document;
  return { doc, before: viewOutput(doc.getElementById("own")!) };
}

test("copyChat: only nt-chat-<hex> names a chat", () => {
  assert.equal(copyChat(`nt-chat-${ID}`), ID);
  assert.equal(copyChat(`nt-chat-${ID}\n`), ID);
  for (const bad of [undefined, null, 3, ["nt-chat-" + ID], `nt-chat-${ID}"] *`, "nt-chat-ABCDEF012345", "nt-chat-abc", `x nt-chat-${ID}`]) {
    assert.equal(copyChat(bad), null, String(bad));
  }
});

test("the view's output is the row before the copy's, and only an output row", () => {
  const { before } = page("<b>view</b>");
  assert.equal(before?.textContent, "view");
  const doc = new JSDOM(`<!doctype html><div class="jp-OutputArea"><div class="lm-Widget"></div><div class="jp-OutputArea-child"><div class="jp-OutputArea-output" id="own"></div></div></div>`).window.document;
  assert.equal(viewOutput(doc.getElementById("own")!), null, "an output JupyterLab could not render is no row");
  const alone = new JSDOM(`<!doctype html><div class="jp-OutputArea"><div class="jp-OutputArea-child"><div class="jp-OutputArea-output" id="own"></div></div></div>`).window.document;
  assert.equal(viewOutput(alone.getElementById("own")!), null);
});

test("while the view is on its way the copy waits; with no chat or no view's output it is drawn", () => {
  // "Loading widget...", nothing yet, the view's element before the view starts (its class comes later)
  for (const view of ["", "Loading widget...", `<div class="lm-Widget"></div>`, `<div class="lm-Widget nt-chat-${ID}"></div>`]) {
    const { doc, before } = page(view);
    assert.equal(copyState(doc, before, ID, false), "pending", view);
    assert.equal(copyState(doc, before, ID, true), "free", `${view}: a view heard from that says nothing more went`);
    assert.equal(copyState(doc, before, null, false), "free");
  }
  const { doc } = page("");
  assert.equal(copyState(doc, null, ID, false), "free", "no view's output: nothing is coming");
});

test("an error or a hidden view's output frees the copy", () => {
  const error = page("Error displaying widget: model not found", "jupyter-widgets");
  assert.equal(copyState(error.doc, error.before, ID, false), "free");
  const gone = page("", "lm-mod-hidden");
  assert.equal(copyState(gone.doc, gone.before, ID, false), "free");
});

test("the view's word decides: waiting, then shown; a view that goes leaves the copy drawn", () => {
  const { doc, before } = page(`<div class="lm-Widget nt-chat-${ID}"></div>`);
  const view = staticCopy([`nt-chat-${ID}`], doc);
  assert.equal(viewsSay(doc, ID), "waiting");
  assert.equal(copyState(doc, before, ID, true), "pending");
  view.hide();
  assert.equal(viewsSay(doc, ID), "hidden");
  assert.equal(copyState(doc, before, ID, true), "live");
  assert.equal(copyState(doc, before, "ffffffffffffffff", true), "free", "another chat's view says nothing of this one");
  view.dispose();
  assert.equal(viewsSay(doc, ID), null);
  assert.equal(copyState(doc, before, ID, true), "free");
});

test("a view whose kernel went before the transcript frees the copy, though it stays; one that shows it wins", () => {
  const { doc, before } = page(`<div class="lm-Widget nt-chat-${ID}"></div>`);
  const first = staticCopy([`nt-chat-${ID}`], doc);
  first.release();
  assert.equal(viewsSay(doc, ID), "released");
  assert.equal(copyState(doc, before, ID, true), "free", "its element is still there, showing why it is gone");
  const second = staticCopy([`nt-chat-${ID}`], doc);
  assert.equal(copyState(doc, before, ID, true), "pending", "the second waits");
  second.hide();
  assert.equal(copyState(doc, before, ID, true), "live");
  second.dispose();
  first.dispose();
  assert.equal(viewsSay(doc, ID), null);
});
