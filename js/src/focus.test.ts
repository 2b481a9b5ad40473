// Which element focus may leave for a prompt, which prompt comes first, and how keys are marked, in jsdom.
// (What JupyterLab then does with them is checked in real JupyterLab by tests/test_browser_ux.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "HTMLInputElement", "HTMLTextAreaElement", "HTMLSelectElement", "KeyboardEvent"]) g[name] = (dom.window as any)[name];

const { firstOpenPrompt, mayTakeFocus } = await import("./focus");
const { keepKeysInWidget, reachesJupyterLab } = await import("./keys");

function page(html: string): HTMLElement {
  document.body.innerHTML = html;
  return document.body;
}

test("focus may move from nothing, a cell in command mode, a button, or a disabled message box", () => {
  const body = page(`<div class="jp-Cell" tabindex="0"></div><button>Run</button><textarea disabled></textarea>`);
  assert.equal(mayTakeFocus(null), true);
  assert.equal(mayTakeFocus(document.body), true);
  for (const el of Array.from(body.children)) assert.equal(mayTakeFocus(el), true, el.outerHTML);
});

test("focus never leaves a place being typed in, nor an open prompt (of this view or another)", () => {
  const body = page(`
    <div class="cm-editor"><div class="cm-content" contenteditable="true"><span id="line">x = 1</span></div></div>
    <input id="text" type="text"><input id="search" type="search"><textarea id="area"></textarea><select id="sel"></select>
    <section class="nt-prompt nt-pending" id="open"><button id="yes">Yes</button><input id="radio" type="radio"></section>
    <section class="nt-prompt nt-answered"><button id="old">Old</button></section>`);
  for (const id of ["line", "text", "search", "area", "sel", "open", "yes", "radio"]) {
    assert.equal(mayTakeFocus(body.querySelector(`#${id}`)), false, id);
  }
  assert.equal(mayTakeFocus(body.querySelector("#old")), true);
});

test("the first open prompt is the first in reading order, not one being sent or already answered", () => {
  const body = page(`
    <div class="nt-log">
      <section class="nt-prompt nt-answered" data-tool-use-id="a"></section>
      <section class="nt-prompt nt-pending nt-sending" data-tool-use-id="b"></section>
      <section class="nt-prompt nt-pending" data-tool-use-id="c"></section>
      <section class="nt-prompt nt-pending" data-tool-use-id="d"></section>
    </div>
    <div class="nt-loose-prompts"><section class="nt-prompt nt-pending" data-tool-use-id="e"></section></div>`);
  assert.equal(firstOpenPrompt(body)?.dataset.toolUseId, "c");
  page("<div></div>");
  assert.equal(firstOpenPrompt(document.body), null);
});

test("every key pressed in the widget is marked for Lumino to leave alone, except Accel+S", () => {
  const body = page(`<div class="nt-chat"><button id="b">Drop</button></div><button id="outside">x</button>`);
  keepKeysInWidget(body.querySelector<HTMLElement>(".nt-chat")!);
  const button = body.querySelector("#b")!;
  const press = (target: Element, init: KeyboardEventInit) =>
    target.dispatchEvent(new dom.window.KeyboardEvent("keydown", { bubbles: true, ...init }));
  press(button, { key: "d" });
  assert.equal(button.getAttribute("data-lm-suppress-shortcuts"), "true");
  press(button, { key: "s", ctrlKey: true });
  assert.equal(button.hasAttribute("data-lm-suppress-shortcuts"), false);
  press(button, { key: "ArrowDown" });
  assert.equal(button.hasAttribute("data-lm-suppress-shortcuts"), true);
  press(body.querySelector("#outside")!, { key: "d" });
  assert.equal(body.querySelector("#outside")!.hasAttribute("data-lm-suppress-shortcuts"), false);
  assert.equal(reachesJupyterLab(new dom.window.KeyboardEvent("keydown", { key: "S", metaKey: true, shiftKey: true })), true);
  assert.equal(reachesJupyterLab(new dom.window.KeyboardEvent("keydown", { key: "s" })), false);
});
