// Which element focus may leave for a prompt, which prompt comes first, and how keys are marked, in jsdom.
// (What JupyterLab then does with them is checked in real JupyterLab by tests/browser/test_browser_ux.py and
// tests/browser/test_browser_focus.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "HTMLInputElement", "HTMLTextAreaElement", "HTMLSelectElement", "KeyboardEvent"]) g[name] = (dom.window as any)[name];

const { firstOpenPrompt, focusInCard, mayTakeFocus, optionToEnter, promptFocus } = await import("./focus");
const { keepKeysInWidget, reachesJupyterLab } = await import("./keys");

function page(html: string): HTMLElement {
  document.body.innerHTML = html;
  return document.body;
}

test("focus may move from nowhere, or from this chat's own buttons and disabled message box", () => {
  const body = page(`
    <div class="nt-chat" id="chat"><button id="tools">Tools</button><textarea id="sent" disabled></textarea>
      <section class="nt-prompt nt-answered"><button id="old">Old</button></section></div>`);
  const chat = body.querySelector("#chat")!;
  assert.equal(mayTakeFocus(null, chat), true);
  assert.equal(mayTakeFocus(document.body, chat), true);
  for (const id of ["tools", "sent", "old"]) assert.equal(mayTakeFocus(body.querySelector(`#${id}`), chat), true, id);
});

test("focus never leaves the rest of the page: a cell, its editor, a dialog, another widget or chat", () => {
  const body = page(`
    <div class="jp-Notebook"><div class="jp-Cell" id="cell" tabindex="0">
      <div class="cm-editor"><div class="cm-content" contenteditable="true"><span id="line">x = 1</span></div></div>
      <div class="jp-OutputArea">
        <div class="jp-OutputArea-output"><div class="nt-chat" id="chat"></div></div>
        <div class="jp-OutputArea-output"><div class="nt-chat" id="other"><button id="other-tools">Tools</button>
          <section class="nt-prompt nt-answered"><button id="other-old">Old</button></section></div></div>
        <div class="jp-OutputArea-output"><div class="widget-slider"><button id="widget">Play</button></div></div>
      </div></div></div>
    <div class="jp-Dialog"><button id="dialog" class="jp-mod-accept">Restart</button></div>`);
  const chat = body.querySelector("#chat")!;
  for (const id of ["cell", "line", "other", "other-tools", "other-old", "widget", "dialog"]) {
    assert.equal(mayTakeFocus(body.querySelector(`#${id}`), chat), false, id);
  }
});

test("inside the chat, focus never leaves a place being typed in, nor an open prompt", () => {
  const body = page(`<div class="nt-chat" id="chat">
    <input id="text" type="text"><input id="search" type="search"><textarea id="area"></textarea><select id="sel"></select>
    <div id="edit" contenteditable="true"></div>
    <section class="nt-prompt nt-pending" id="open"><button id="yes">Yes</button><input id="radio" type="radio"></section></div>`);
  const chat = body.querySelector("#chat")!;
  for (const id of ["text", "search", "area", "sel", "edit", "open", "yes", "radio"]) {
    assert.equal(mayTakeFocus(body.querySelector(`#${id}`), chat), false, id);
  }
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

// The view's focus placement, run in jsdom: frames run on a timer, and cards have a size.
g.requestAnimationFrame = (run: () => void) => setTimeout(run, 0) as unknown as number;
g.cancelAnimationFrame = (id: number) => clearTimeout(id);
(dom.window.HTMLElement.prototype as any).getBoundingClientRect = () => ({ width: 100, height: 40, top: 0, left: 0, bottom: 40, right: 100 });
(dom.window.HTMLElement.prototype as any).scrollIntoView = () => {};
const frame = () => new Promise((done) => setTimeout(done, 5));

function chatPage(): { chat: HTMLElement; cell: HTMLElement; widget: HTMLElement; tools: HTMLElement } {
  const body = page(`
    <div class="jp-Cell" id="cell" tabindex="0"><div class="jp-OutputArea">
      <div class="jp-OutputArea-output"><div class="nt-chat" id="chat"><div class="nt-log"></div><button id="tools">Tools</button></div></div>
      <div class="jp-OutputArea-output"><input id="widget" type="range"></div></div></div>`);
  const [chat, cell, widget, tools] = ["chat", "cell", "widget", "tools"].map((id) => body.querySelector<HTMLElement>(`#${id}`)!);
  return { chat, cell, widget, tools };
}
function openPrompt(chat: HTMLElement, id: string): HTMLElement {
  const card = document.createElement("section");
  card.className = "nt-prompt nt-pending";
  card.dataset.toolUseId = id;
  card.tabIndex = -1;
  chat.querySelector(".nt-log")!.append(card);
  return card;
}
const focusedCard = () => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>("section.nt-prompt")?.dataset.toolUseId ?? null;

test("a prompt that opens takes the focus from nowhere, never from a cell in command mode or another widget", async () => {
  const { chat, cell, widget } = chatPage();
  const focus = promptFocus(chat, (scroll) => scroll());
  focus.ready();
  for (const [place, el] of [["cell", cell], ["widget", widget]] as const) {
    el.focus();
    assert.equal(document.activeElement, el, place);
    openPrompt(chat, `p_${place}`);
    focus.update();
    await frame();
    assert.equal(document.activeElement, el, `a prompt took the focus from the ${place}`);
  }
  (document.activeElement as HTMLElement).blur();
  assert.equal(document.activeElement, document.body);
  openPrompt(chat, "p_body");
  focus.update();
  await frame();
  assert.equal(focusedCard(), "p_cell"); // from nowhere: the first open prompt, in reading order
  focus.dispose();
});

test("answering a prompt moves the focus to the next one; focus on another control of the chat allows it too", async () => {
  const { chat, tools } = chatPage();
  const first = openPrompt(chat, "one");
  openPrompt(chat, "two");
  const focus = promptFocus(chat, (scroll) => scroll());
  focus.update();
  focus.ready();
  await frame();
  assert.equal(focusedCard(), "one");
  first.classList.replace("nt-pending", "nt-answered"); // answered: its card stays, answered
  tools.focus(); // e.g. the person had gone on to the Tools button meanwhile
  focus.update();
  await frame();
  assert.equal(focusedCard(), "two");
  focus.dispose();
});

test("a prompt closed by its item, after the prompts trait changed, still moves the focus to the next", async () => {
  // The `prompts` trait and the items are separate messages. When the trait comes first, the item
  // still says pending and the open prompts look the same; the item's redraw then closes the card.
  const { listen } = await import("../chat/events");
  const { chat } = chatPage();
  const first = openPrompt(chat, "one");
  openPrompt(chat, "two");
  const submit = first.appendChild(document.createElement("button"));
  const focus = promptFocus(chat, (scroll) => scroll());
  focus.update();
  focus.ready();
  submit.focus(); // the person pressed the first card's Submit
  const handlers = new Map<string, (...args: any[]) => void>();
  const model = { on: (name: string, run: (...args: any[]) => void) => handlers.set(name, run), off: () => {}, get: () => undefined };
  const log = {
    upsert: () => {
      const answered = document.createElement("section"); // the item redrawn: its card answered, Submit gone
      answered.className = "nt-prompt nt-answered";
      first.replaceWith(answered);
    },
  };
  const stop = listen(model as any, {
    log: log as any, renderers: { set: () => {} } as any, menu: { onMessage: () => {} } as any,
    link: { dispatch: () => {} } as any, focus, copy: { hide: () => {} }, drawChrome: () => {}, drawPrompts: () => focus.update(),
  });
  handlers.get("change:prompts")!(); // the trait first: nothing on the page changed yet
  await frame();
  assert.equal(focusedCard(), "one");
  handlers.get("msg:custom")!({ type: "items", items: [{ id: "one", kind: "tool" }] });
  await frame();
  assert.equal(focusedCard(), "two");
  stop();
  focus.dispose();
});

test("arrow keys on a focused card enter its options: the chosen one, else the first or the last", () => {
  const body = page(`<section class="nt-prompt nt-pending"><div class="nt-options">
      <input type="radio" value="north"><input type="radio" value="south" disabled><input type="radio" value="east"></div></section>
    <section class="nt-prompt nt-pending" id="text"><input class="nt-input" type="text"></section>`);
  const card = body.querySelector("section")!;
  const radios = Array.from(card.querySelectorAll("input"));
  assert.equal(optionToEnter(card, "ArrowDown")?.value, "north");
  assert.equal(optionToEnter(card, "ArrowRight")?.value, "north");
  assert.equal(optionToEnter(card, "ArrowUp")?.value, "east");
  assert.equal(optionToEnter(card, "End")?.value, "east");
  radios[2].checked = true;
  assert.equal(optionToEnter(card, "ArrowDown")?.value, "east");
  assert.equal(optionToEnter(card, "Home")?.value, "north");
  assert.equal(optionToEnter(card, "Enter"), null);
  assert.equal(optionToEnter(card, "a"), null);
  assert.equal(optionToEnter(body.querySelector("#text")!, "ArrowDown"), null); // no options: the key is the browser's
});

test("ArrowDown on a focused select card moves the focus into its options, in the view", async () => {
  const { chat } = chatPage();
  const card = openPrompt(chat, "pick");
  card.innerHTML = `<div class="nt-options"><input type="radio" value="north"><input type="radio" value="south"></div>`;
  const focus = promptFocus(chat, (scroll) => scroll());
  card.focus();
  const down = new dom.window.KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true, cancelable: true });
  card.dispatchEvent(down);
  assert.equal((document.activeElement as HTMLInputElement).value, "north");
  assert.equal(down.defaultPrevented, true); // the log does not scroll instead
  focus.dispose();
});

const { promptCard } = await import("../prompts/common");
const { renderConfirm } = await import("../prompts/confirm");
const { renderText } = await import("../prompts/text");
const { renderSelect, moveTo } = await import("../prompts/select");

function prompt(kind: "confirm" | "text" | "select", input: Record<string, unknown>) {
  return {
    answer: "", description: "", error: "", input, input_schema: null, kind, name: kind, output_schema: null,
    renderer: "", scope: "", reasons: [], preview: null, editable: true, requested_at: Date.now() / 1000, status: "pending" as const, timeout: null, tool_use_id: `t_${kind}`,
  };
}

test("Escape never answers a prompt, wherever it is pressed on the card; the Skip button does", () => {
  const cases = [
    [prompt("confirm", { message: "Drop?" }), renderConfirm],
    [prompt("text", { prompt: "Name?", default: "sales" }), renderText],
    [prompt("select", { prompt: "Region?", options: ["north", "south"] }), renderSelect],
  ] as const;
  for (const [state, render] of cases) {
    const sent: unknown[] = [];
    const card = promptCard(
      { prompt: state, submit: (answer) => sent.push(answer), send: () => {}, onMessage: () => () => {}, maxUploadBytes: 1 << 20 },
      render,
    );
    page("").append(card);
    for (const target of [card, ...Array.from(card.querySelectorAll<HTMLElement>("button, input"))]) {
      const escape = new dom.window.KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true });
      target.dispatchEvent(escape);
      assert.equal(escape.defaultPrevented, false, `${state.kind}: Escape is left to the page`);
    }
    assert.deepEqual(sent, [], state.kind);
    assert.equal(card.classList.contains("nt-sending"), false, state.kind);
    card.querySelector<HTMLButtonElement>(".nt-skip")!.click();
    assert.deepEqual(sent, [{ skip: true }], state.kind);
  }
});

test("the arrows, Home and End move the focus among a multiple choice's checkboxes without ticking", () => {
  assert.deepEqual([moveTo("ArrowDown", 0, 3), moveTo("ArrowDown", 2, 3), moveTo("ArrowUp", 0, 3), moveTo("End", 0, 3), moveTo("Home", 2, 3)], [1, 2, 0, 2, 0]);
  assert.equal(moveTo("Enter", 0, 3), null);
  const state = prompt("select", { prompt: "Columns?", options: ["price", "qty", "date"], multiple: true });
  const card = promptCard({ prompt: state, submit: () => {}, send: () => {}, onMessage: () => () => {}, maxUploadBytes: 1 }, renderSelect);
  page("").append(card);
  const boxes = Array.from(card.querySelectorAll<HTMLInputElement>("input[type=checkbox]"));
  boxes[0].focus();
  const press = (key: string) => (document.activeElement as HTMLElement).dispatchEvent(new dom.window.KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  press("ArrowDown");
  assert.equal(document.activeElement, boxes[1]);
  press("End");
  assert.equal(document.activeElement, boxes[2]);
  press("ArrowUp");
  assert.equal(document.activeElement, boxes[1]);
  assert.deepEqual(boxes.map((b) => b.checked), [false, false, false]);
});

test("a button a card offers later (Save, Open, Copy) takes the focus from its card or nowhere, never from a cell", () => {
  const body = page(`<textarea id="cell"></textarea>
    <section class="nt-prompt nt-pending" tabindex="-1"><div id="el"></div></section>`);
  const card = body.querySelector<HTMLElement>("section")!;
  const offer = () => {
    const button = document.createElement("button");
    body.querySelector("#el")!.append(button);
    focusInCard(button);
    return button;
  };
  body.querySelector<HTMLElement>("#cell")!.focus();
  offer();
  assert.equal(document.activeElement, body.querySelector("#cell"));
  card.focus();
  const save = offer();
  assert.equal(document.activeElement, save);
  save.blur();
  const again = offer();
  assert.equal(document.activeElement, again);
});
