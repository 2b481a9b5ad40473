// Which static copy a view hides, and that the rule goes with the view (jsdom; JupyterLab's own
// output rows are checked in real JupyterLab by tests/test_browser_static.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { chatId, hidingRule, staticCopy } from "./staticCopy";

const ID = "0123456789abcdef0123456789abcdef";

test("chatId: the view's nt-chat-<hex> class, nothing else", () => {
  assert.equal(chatId(["widget-x", `nt-chat-${ID}`]), ID);
  assert.equal(chatId([]), null);
  assert.equal(chatId(undefined), null);
  assert.equal(chatId("nt-chat-" + ID), null);
  // Anything that could break out of the CSS selector is refused.
  for (const bad of ['nt-chat-"] body {', "nt-chat-abc", "nt-chat-ABCDEF0123", "nt-chat-0123456789abcdef\\"]) assert.equal(chatId([bad]), null);
});

test("the rule hides only this chat's copy and its output row", () => {
  const dom = new JSDOM(`<!doctype html><html><head></head><body>
    <div class="jp-OutputArea-child" id="own"><div class="jp-OutputArea-output"><div class="nt-static-transcript" data-nt-chat="${ID}">mine</div></div></div>
    <div class="jp-OutputArea-child" id="other"><div class="jp-OutputArea-output"><div class="nt-static-transcript" data-nt-chat="ffffffffffffffff">theirs</div></div></div>
  </body></html>`);
  const doc = dom.window.document;
  const copy = staticCopy(["jupyter-widgets", `nt-chat-${ID}`], doc);
  // the view says it waits for the transcript (the JupyterLab extension's renderer reads it), with no rule
  const waiting = doc.querySelectorAll("style");
  assert.equal(waiting.length, 1);
  assert.equal(waiting[0].textContent, "", "nothing is hidden before the view has the transcript");
  assert.equal(waiting[0].getAttribute("data-nt-state"), "waiting");
  copy.hide();
  copy.hide();
  const styles = doc.querySelectorAll("style");
  assert.equal(styles.length, 1);
  assert.equal(styles[0].textContent, hidingRule(ID));
  assert.equal(styles[0].getAttribute("data-nt-state"), "hidden");
  copy.release(); // too late to matter: the view shows the transcript
  assert.equal(doc.querySelectorAll("style").length, 1);
  assert.ok(!hidingRule(ID).includes("ffffffffffffffff"));
  copy.dispose();
  assert.equal(doc.querySelectorAll("style").length, 0, "a view that goes shows the copy again");
});

test("a view whose kernel went before the transcript came says nothing more", () => {
  const doc = new JSDOM("<!doctype html><html><head></head><body></body></html>").window.document;
  const copy = staticCopy([`nt-chat-${ID}`], doc);
  assert.equal(doc.querySelectorAll("style").length, 1);
  copy.release();
  const styles = doc.querySelectorAll("style");
  assert.equal(styles.length, 1, "the view still says where it stands");
  assert.equal(styles[0].getAttribute("data-nt-state"), "released");
  assert.equal(styles[0].textContent, "", "the copy is the conversation again: nothing hidden");
  copy.dispose();
  assert.equal(doc.querySelectorAll("style").length, 0);
});

test("a view without a chat id hides nothing", () => {
  const doc = new JSDOM("<!doctype html><html><head></head><body></body></html>").window.document;
  const copy = staticCopy(undefined, doc);
  copy.hide();
  assert.equal(doc.querySelectorAll("style").length, 0);
  copy.dispose();
});

test("the copy's content leaves the page once hidden, a newer copy's too, and comes back when the view goes", async () => {
  const dom = new JSDOM(`<!doctype html><html><head></head><body>
    <div class="jp-OutputArea" id="area">
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-output" id="view"></div></div>
      <div class="jp-OutputArea-child"><div class="jp-OutputArea-output" id="host"><div class="nt-static-transcript" data-nt-chat="${ID}"><p>first</p><p>turn</p></div></div></div>
    </div>
    <div class="jp-OutputArea"><div class="jp-OutputArea-child"><div class="jp-OutputArea-output"><div data-nt-chat="${ID}">another cell's</div></div></div></div>
  </body></html>`);
  const doc = dom.window.document;
  (globalThis as Record<string, unknown>).MutationObserver = dom.window.MutationObserver;
  const area = doc.getElementById("area")!;
  const copy = staticCopy([`nt-chat-${ID}`], doc, () => area);
  const own = () => area.querySelector(`[data-nt-chat="${ID}"]`)!;
  copy.hide();
  assert.equal(own().childNodes.length, 0, "the copy's messages are out of the page");
  assert.equal(own().getAttribute("data-nt-chat"), ID, "its element stays (the rule hides its row)");
  assert.equal(doc.body.lastElementChild!.textContent!.trim(), "another cell's", "another output area is its own view's");
  // the kernel replaced the copy (a turn ended): JupyterLab draws the new one into the same output
  doc.getElementById("host")!.innerHTML = `<div class="nt-static-transcript" data-nt-chat="${ID}"><p>second</p><p>turn</p></div>`;
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(own().childNodes.length, 0, "the newer copy is taken out too");
  // a copy output that comes after the snapshot (a new output in the area)
  const late = doc.createElement("div");
  late.innerHTML = `<div data-nt-chat="${ID}"><p>late</p></div>`;
  area.append(late);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(late.firstElementChild!.childNodes.length, 0);
  copy.dispose();
  assert.equal(own().textContent, "secondturn", "the last copy is shown again when the view goes");
  assert.equal(late.textContent, "late");
  assert.equal(doc.querySelectorAll("style").length, 0);
});
