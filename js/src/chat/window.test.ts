// Draw only what is seen (window.ts) through the chat log (jsdom): a restored session of 1,000 items
// puts placeholders in the log and draws its end; scrolled from top to bottom, every message is drawn
// in turn while the drawn ones stay few; what the person uses never goes back to a placeholder.
// jsdom has no layout and no IntersectionObserver: a stand-in lays the log's children out one under
// the other (a placeholder as high as it says, a drawn item 100 px) and reports what comes near.
import "../results/testDom";
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import type { Item } from "../wire/protocol";
import { chatLog } from "./log";
import { RendererModules } from "../renderers/api";
import { FAR, NEAR, TAB_REACH, TAIL, type SightEntry, type Watch, estimateHeight, itemWindow, tailCount } from "./window";

// Chromium and Firefox anchor scrolling (the window then reads no layout); jsdom has no CSS.supports.
(globalThis as Record<string, unknown>).CSS = { supports: (property: string, value: string) => property === "overflow-anchor" && value === "auto" };

const VIEW = 560; // the log's visible height (its max-height)
const DRAWN = 100;

/** A stand-in IntersectionObserver per margin, and a layout of the log's children. */
function sightOf(log: HTMLElement) {
  const observers: Array<{ margin: number; seen: (entries: SightEntry[]) => void; els: Set<Element> }> = [];
  let top = 0;
  const watch: Watch = (_root, margin, seen) => {
    const o = { margin, seen, els: new Set<Element>() };
    observers.push(o);
    return { observe: (el) => void o.els.add(el), unobserve: (el) => void o.els.delete(el), disconnect: () => o.els.clear() };
  };
  const heights = new WeakMap<Element, number>(); // a placeholder's height never changes: read once (jsdom parses styles slowly)
  const height = (el: Element) => {
    let known = heights.get(el);
    if (known === undefined) heights.set(el, (known = (el as HTMLElement).classList.contains("nt-lazy") ? parseFloat((el as HTMLElement).style.height) : DRAWN));
    return known;
  };
  const boxes = () => {
    let y = 0;
    return (Array.from(log.children) as HTMLElement[]).map((el) => {
      const box = { el, top: y - top, bottom: y + height(el) - top, height: height(el) };
      y += height(el);
      return box;
    });
  };
  const total = () => boxes().reduce((n, b) => n + b.height, 0);
  /** Report to each observer what it watches, as the browser does after a layout, until nothing changes. */
  const settle = () => {
    for (let round = 0; round < 50; round++) {
      const before = Array.from(log.children);
      for (const o of observers) {
        const entries = boxes()
          .filter((b) => o.els.has(b.el))
          .map((b) => ({ target: b.el, isIntersecting: b.bottom > -o.margin && b.top < VIEW + o.margin, boundingClientRect: b, rootBounds: { top: 0, bottom: VIEW } }));
        if (entries.length) o.seen(entries);
      }
      const after = Array.from(log.children);
      if (before.length === after.length && before.every((el, k) => el === after[k])) return;
    }
    throw new Error("the window did not settle");
  };
  const topOf = (el: Element) => boxes().find((b) => b.el === el)!.top + top;
  return { watch, settle, total, topOf, scrollTo: (y: number) => void (top = y), visible: () => boxes().filter((b) => b.bottom > 0 && b.top < VIEW) };
}

// Each test's log leaves the page after it (a prompt card on the page ticks its countdown every second).
const logs: HTMLElement[] = [];
afterEach(() => logs.splice(0).forEach((log) => log.remove()));

function makeLog() {
  let prompts: Record<string, unknown> = {};
  const model = { get: (name: string) => (name === "prompts" ? prompts : undefined), on: () => {}, off: () => {} } as never;
  const log = document.createElement("div");
  document.body.append(log);
  logs.push(log);
  const dom = { log, loose: document.createElement("div"), root: document.createElement("div") } as never;
  const link = { send: () => {}, onMessage: () => () => {} } as never;
  const sight = sightOf(log);
  const chat = chatLog(model, dom, link, new RendererModules(), sight.watch);
  return { chat, log, sight, setPrompts: (p: Record<string, unknown>) => void (prompts = p) };
}

function session(n: number): Item[] {
  return Array.from({ length: n }, (_, k) =>
    k % 2 === 0 ? { id: `u${k}`, kind: "user", text: `question ${k}` } : { id: `a${k}`, kind: "assistant", text: `Answer **${k}**, in a paragraph.\n\n- and a list` },
  );
}

const lazyCount = (log: HTMLElement) => log.querySelectorAll(":scope > .nt-lazy").length;

test("estimates: taller for longer text; the tail takes as many last items as fill the budget", () => {
  const short = estimateHeight({ id: "a", kind: "assistant", text: "one line" });
  const long = estimateHeight({ id: "b", kind: "assistant", text: "a line\n\n".repeat(20) });
  assert.ok(long > short && short > 0);
  assert.equal(tailCount([100, 100, 100, 100], 250), 3);
  assert.equal(tailCount([100, 100], 1000), 2);
  assert.equal(tailCount([500], 100), 1);
  assert.equal(tailCount([], 100), 0);
});

test("a restored session of 1,000 messages: placeholders, its end drawn at once", () => {
  const { chat, log } = makeLog();
  chat.snapshot(session(1000));
  assert.equal(log.children.length, 1000, "one child per item, in order");
  const drawn = 1000 - lazyCount(log);
  assert.ok(drawn >= 1 && drawn < 60, `only the end is drawn (${drawn})`);
  assert.ok(!log.lastElementChild!.classList.contains("nt-lazy"), "the last message is drawn");
  assert.match(log.lastElementChild!.textContent!, /Answer 999/);
  // a placeholder holds its message's plain text (find-in-page finds it) and nothing more
  const first = log.firstElementChild as HTMLElement;
  assert.ok(first.classList.contains("nt-lazy"));
  assert.equal(first.textContent, "question 0");
  assert.equal(first.children.length, 0);
  // the tail covers at least what the log shows first
  const tail = (Array.from(log.children) as HTMLElement[]).slice(1000 - drawn).reduce((n) => n + DRAWN, 0);
  assert.ok(tail >= Math.min(TAIL, VIEW));
});

test("scrolled from top to bottom, every message is drawn in turn, and few at once", () => {
  // 400 items (jsdom renders markdown slowly); the 1,000 of a real session: tests/browser/test_browser_long_session.py
  const { chat, log, sight } = makeLog();
  const items = session(400);
  chat.snapshot(items);
  sight.settle();
  const seen = new Set<string>();
  let most = 0;
  for (let y = 0; y <= sight.total(); y += VIEW - 20) {
    sight.scrollTo(y);
    sight.settle();
    for (const box of sight.visible()) {
      assert.ok(!box.el.classList.contains("nt-lazy"), `what the log shows is drawn (at ${y})`);
      seen.add(box.el.textContent!);
    }
    most = Math.max(most, log.children.length - lazyCount(log));
  }
  sight.scrollTo(sight.total() - VIEW);
  sight.settle();
  for (const box of sight.visible()) seen.add(box.el.textContent!);
  const texts = items.map((item) => (item.kind === "user" ? item.text! : `Answer ${item.id.slice(1)}, in a paragraph.`));
  const missing = texts.filter((text) => ![...seen].some((s) => s.startsWith(text)));
  assert.deepEqual(missing, [], "every message was drawn on screen");
  assert.equal(log.children.length, 400);
  // what is drawn at once: the visible part and the margins on either side, not the session
  assert.ok(most <= Math.ceil((VIEW + NEAR + FAR) / DRAWN) + 60, `at most ${most} drawn at once`);
});

test("what the person uses stays drawn: focus inside, an open fold comes back open", () => {
  const { chat, log, sight } = makeLog();
  const items: Item[] = [...session(200), { id: "t1", kind: "tool", name: "lookup", input: { q: 1 }, status: "done", result: "found" }, ...session(200).map((item) => ({ ...item, id: `${item.id}b` }))];
  chat.snapshot(items);
  sight.scrollTo(0);
  sight.settle();
  const question = log.children[0] as HTMLElement;
  assert.ok(!question.classList.contains("nt-lazy"));
  // the person types in it (a focusable element inside stands for a prompt's field)
  const field = document.createElement("input");
  question.append(field);
  field.focus();
  // the tool card's result opened, then scrolled far away and back
  sight.scrollTo(sight.topOf(log.children[200]) - 100);
  sight.settle();
  const card = () => log.children[200] as HTMLElement;
  assert.ok(card().matches('[data-tool-use-id="t1"]'));
  card().querySelector<HTMLDetailsElement>("details.nt-result")!.open = true;
  sight.scrollTo(sight.total() - VIEW);
  sight.settle();
  assert.equal(log.children[0], question, "the focused item was not replaced");
  assert.equal(document.activeElement, field);
  const rested = log.children[200] as HTMLElement;
  assert.ok(rested.classList.contains("nt-lazy"), "the card far away went back to a placeholder");
  assert.match(rested.textContent!, /lookup\nfound/);
  sight.scrollTo(sight.topOf(log.children[200]) - 100);
  sight.settle();
  assert.equal(card().querySelector<HTMLDetailsElement>("details.nt-result")!.open, true, "its fold came back open");
});

test("a placeholder that gets streamed text or a prompt card is drawn at once", () => {
  const frames: FrameRequestCallback[] = [];
  (globalThis as Record<string, unknown>).requestAnimationFrame = (cb: FrameRequestCallback) => frames.push(cb);
  const { chat, log, setPrompts } = makeLog();
  const items = session(400);
  items[3] = { id: "t3", kind: "tool", name: "lookup", input: { q: 3 }, status: "done", result: "found" };
  chat.snapshot(items);
  const old = log.children[1] as HTMLElement;
  assert.ok(old.classList.contains("nt-lazy"));
  chat.delta("a1", " More.");
  frames.splice(0).forEach((cb) => cb(0));
  assert.ok(!log.children[1].classList.contains("nt-lazy"));
  assert.match(log.children[1].textContent!, /in a paragraph\.\s*and a list More\./);
  // an item whose prompt (re)opens is drawn with its card
  assert.ok(log.children[3].classList.contains("nt-lazy"));
  setPrompts({ t3: { tool_use_id: "t3", name: "lookup", kind: "confirm", status: "pending", input: { message: "sure?" }, error: "", timeout: null } });
  chat.drawPrompts();
  assert.ok(!log.children[3].classList.contains("nt-lazy"));
  assert.ok(log.children[3].querySelector("section.nt-prompt"), "drawn with its card");
});

test("items that arrive live are drawn; without an IntersectionObserver everything is drawn", () => {
  const { chat, log } = makeLog();
  for (const item of session(300)) chat.upsert(item);
  assert.equal(lazyCount(log), 0, "a live turn's items are drawn as they come");
  // no observer (jsdom, an old host): a snapshot is drawn whole, as before
  const plain = document.createElement("div");
  const model = { get: () => ({}), on: () => {}, off: () => {} } as never;
  const link = { send: () => {}, onMessage: () => () => {} } as never;
  const none = chatLog(model, { log: plain, loose: document.createElement("div"), root: document.createElement("div") } as never, link, new RendererModules(), () => null);
  none.snapshot(session(300));
  assert.equal(plain.children.length, 300);
  assert.equal(plain.querySelectorAll(".nt-lazy").length, 0);
});

test("the window reads no layout of its own where the browser anchors scrolling", () => {
  const log = document.createElement("div");
  const drawn: string[] = [];
  let observers = 0;
  const watch: Watch = () => ({ observe: () => void observers++, unobserve: () => {}, disconnect: () => {} });
  const sight = itemWindow(log, { draw: (id) => void drawn.push(id), rest: () => false }, watch);
  const el = sight.placeholder("x", { id: "x", kind: "user", text: "hello" }, 42);
  assert.equal(el.style.height, "42px");
  assert.equal(sight.idOf(el), "x");
  assert.ok(sight.isPlaceholder(el) && sight.windowed);
  assert.equal(observers, 1);
});

test("Tab and Shift+Tab reach what items not drawn yet hold; one press draws a bounded number of them", () => {
  const { chat, log, sight } = makeLog();
  const tool = (id: string): Item => ({ id, kind: "tool", name: "lookup", input: { q: 1 }, status: "done", result: "found" });
  const items = session(400);
  items[40] = tool("t40");
  items[300] = tool("t300");
  chat.snapshot(items);
  sight.scrollTo(0);
  sight.settle();
  const isLazy = (k: number) => log.children[k].classList.contains("nt-lazy");
  const firstLazy = Array.from(log.children).findIndex((el) => el.classList.contains("nt-lazy"));
  assert.ok(firstLazy > 0 && firstLazy < 40, `drawn up to ${firstLazy}`);
  const press = (target: Element, shiftKey = false) => {
    const event = new (globalThis as any).window.KeyboardEvent("keydown", { key: "Tab", shiftKey, bubbles: true, cancelable: true });
    target.dispatchEvent(event);
    assert.equal(event.defaultPrevented, false, "the browser still moves the focus");
  };
  const field = (k: number, first = false) => {
    const el = document.createElement("input");
    (log.children[k] as HTMLElement)[first ? "prepend" : "append"](el);
    return el;
  };
  // a focusable with another after it in its item: Tab stays inside, nothing is drawn
  const last = field(firstLazy - 1);
  const earlier = field(firstLazy - 1, true);
  const before = lazyCount(log);
  press(earlier);
  assert.equal(lazyCount(log), before);
  // from the last focusable of the last drawn item: drawn on up to the tool card, which has a fold, no further
  press(last);
  const card = log.children[40] as HTMLElement;
  assert.ok(card.matches('[data-tool-use-id="t40"]') && card.querySelector("summary"), "the card is drawn, its fold focusable");
  for (let k = firstLazy; k <= 40; k++) assert.ok(!isLazy(k), `item ${k} drawn`);
  assert.ok(isLazy(41), "nothing past it");
  // from the card's last focusable, the next item with something to focus is 260 placeholders away: TAB_REACH drawn
  const inCard = card.querySelectorAll("summary, button, a[href]");
  const drawnBefore = lazyCount(log);
  press(inCard[inCard.length - 1]);
  assert.equal(drawnBefore - lazyCount(log), TAB_REACH);
  // Shift+Tab from the first focusable of a drawn item with placeholders above it draws back to the card
  sight.scrollTo(sight.total() - VIEW);
  sight.settle();
  const firstDrawn = Array.from(log.children).findIndex((el, k) => k > 100 && !el.classList.contains("nt-lazy"));
  assert.ok(isLazy(firstDrawn - 1) && firstDrawn > 300, `drawn from ${firstDrawn}`);
  press(field(firstDrawn, true), true);
  assert.ok(!isLazy(firstDrawn - 1), "the item above is drawn");
  // the top item's first focusable: nothing before it, nothing drawn
  const now = lazyCount(log);
  press(field(0, true), true);
  assert.equal(lazyCount(log), now);
});
