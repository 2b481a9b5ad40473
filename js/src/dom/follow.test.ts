// The log's "New messages" pill (follow.ts) in jsdom, with the layout a browser would measure stubbed:
// it shows for items that arrive below the fold while the person reads further up, never for what
// grows inside an item the person opened (a form, a folder listing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "MutationObserver", "Event"]) g[name] = (dom.window as any)[name];

import { followLog } from "./follow";
import { requestFrame } from "./frame";
import { h } from "./dom";

/** A log 400 px high at the top of the page, each item 100 px, scrolled to `scrollTop`. */
function layout(log: HTMLElement, scrollTop: number): { scrollTo: (top: number) => void } {
  let top = scrollTop;
  const items = () => Array.from(log.children) as HTMLElement[];
  Object.defineProperty(log, "clientHeight", { get: () => 400, configurable: true });
  Object.defineProperty(log, "scrollHeight", { get: () => items().reduce((n, el) => n + height(el), 0), configurable: true });
  Object.defineProperty(log, "scrollTop", { get: () => top, set: (v: number) => void (top = Math.max(0, Math.min(v, log.scrollHeight - 400))), configurable: true });
  const height = (el: HTMLElement) => 100 + 40 * el.querySelectorAll(".grown").length + (el.classList.contains("grown") ? 40 : 0);
  const rect = (y: number, hgt: number) => ({ top: y, bottom: y + hgt, left: 0, right: 600, width: 600, height: hgt }) as DOMRect;
  // Measured when asked, as a browser does: an item's place follows the items above it and the scroll.
  dom.window.HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
    if (this === log) return rect(0, 400);
    if (this.parentElement !== log) return rect(0, 0);
    return rect(items().slice(0, items().indexOf(this)).reduce((n, x) => n + height(x), 0) - top, height(this));
  };
  return { scrollTo: (v) => ((top = v), log.dispatchEvent(new dom.window.Event("scroll"))) };
}

/** After the next frame: the follow runs once a frame (a task here, jsdom having no frames), after the
 * observer's callback has noted the change. */
const tick = () => new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), 0));

function setup() {
  const log = h("div", { class: "nt-log" });
  const follow = followLog(log);
  document.body.append(follow.el);
  const view = layout(log, 0);
  const pill = follow.el.querySelector<HTMLButtonElement>(".nt-new-pill")!;
  return { log, follow, view, pill };
}

test("an item arriving below the fold while the person reads further up shows the pill", async () => {
  const { log, view, pill, follow } = setup();
  for (let i = 0; i < 8; i++) log.append(h("div", { class: "nt-msg" }, `item ${i}`));
  await tick();
  assert.equal(log.scrollTop, 400, "at the end, the log follows");
  assert.equal(pill.hidden, true);
  view.scrollTo(0); // the person scrolls up to read
  log.append(h("div", { class: "nt-msg" }, "news"));
  await tick();
  assert.equal(log.scrollTop, 0, "the log stays where the person reads");
  assert.equal(pill.hidden, false);
  pill.click();
  assert.equal(pill.hidden, true);
  assert.equal(log.scrollTop, log.scrollHeight - 400);
  follow.dispose();
  follow.el.remove();
});

test("a form or listing growing inside an item is no news: no pill, scrolled up or answering", async () => {
  const { log, view, pill, follow } = setup();
  for (let i = 0; i < 8; i++) log.append(h("div", { class: "nt-msg" }, `item ${i}`));
  const card = h("section", { class: "nt-prompt nt-pending" }, h("input", { class: "nt-input" }));
  log.append(card);
  await tick();
  // the person is at the end and answering: focus in the open prompt, the log holds still
  card.querySelector<HTMLInputElement>("input")!.focus();
  card.append(h("div", { class: "nt-form grown" }, "the edit form"));
  await tick();
  assert.equal(pill.hidden, true, "opening a form is not news");
  // scrolled up, a listing grows in a card further up
  view.scrollTo(0);
  log.children[1].append(h("div", { class: "nt-listing grown" }, "prices.csv"));
  await tick();
  assert.equal(pill.hidden, true, "a listing the person opened is not news");
  // an item in the middle redrawn (a prompt answered) is not news either
  log.children[2].replaceWith(h("div", { class: "nt-msg" }, "answered"));
  await tick();
  assert.equal(pill.hidden, true);
  // the last item drawn again with more streamed text, below the fold: news
  log.lastElementChild!.replaceWith(h("div", { class: "nt-msg grown" }, "more text"));
  await tick();
  assert.equal(pill.hidden, false);
  follow.dispose();
  follow.el.remove();
});

/** Frames run by hand: `requestAnimationFrame` queues into `frames`, until `done`. */
test("the last item redrawn in the frame the person opens its form is no news: they are in it", async () => {
  const { log, pill, follow } = setup();
  for (let i = 0; i < 3; i++) log.append(h("div", { class: "nt-msg" }, `item ${i}`));
  const card = h("section", { class: "nt-prompt nt-pending" }, h("input", { class: "nt-input" }));
  const call = h("div", { class: "nt-tool" }, card);
  log.append(call);
  await tick();
  assert.equal(pill.hidden, true);
  // a late update of the call redraws it as the log's last item (its card kept), and before the
  // frame that follows it, the person opens the card's form: focus in it, the card now reaching below
  const redrawn = h("div", { class: "nt-tool" });
  call.replaceWith(redrawn);
  redrawn.append(card);
  card.append(h("div", { class: "nt-form grown" }, "the edit form"), h("div", { class: "grown" }), h("div", { class: "grown" }));
  card.querySelector<HTMLInputElement>("input")!.focus();
  await tick();
  assert.equal(pill.hidden, true, "the item the person is answering in is not news");
  // a new item below, while they answer, is
  log.append(h("div", { class: "nt-msg" }, "news"));
  await tick();
  assert.equal(pill.hidden, false);
  follow.dispose();
  follow.el.remove();
});

function handFrames(): { frames: Array<() => void>; run: () => void; done: () => void } {
  const frames: Array<() => void> = [];
  g.requestAnimationFrame = (fn: () => void) => frames.push(fn);
  g.cancelAnimationFrame = () => undefined;
  return {
    frames,
    run: () => frames.splice(0).forEach((fn) => fn()),
    done: () => {
      delete g.requestAnimationFrame;
      delete g.cancelAnimationFrame;
    },
  };
}

/** A log of eight items and a reply, followed to its end; `reads()`: the layout reads since. */
async function followedLog(run: () => void) {
  const { log, follow } = setup();
  for (let i = 0; i < 8; i++) log.append(h("div", { class: "nt-msg" }, `item ${i}`));
  const reply = h("div", { class: "nt-assistant" }, "");
  log.append(reply);
  await Promise.resolve();
  run(); // the frame of the items
  let reads = 0;
  const measured = Object.getOwnPropertyDescriptor(log, "scrollHeight")!;
  Object.defineProperty(log, "scrollHeight", { get: () => (reads++, measured.get!.call(log)), configurable: true });
  return { log, follow, reply, reads: () => reads };
}

test("deltas drawn one task after another are followed once a frame: the layout is read once, not per delta", async () => {
  const hand = handFrames();
  try {
    const { log, follow, reply, reads } = await followedLog(hand.run);
    for (let i = 0; i < 40; i++) {
      reply.append(`delta ${i} `); // a delta message of its own, drawn in its own task
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    assert.equal(reads(), 0, "no layout read while deltas are drawn");
    assert.equal(hand.frames.length, 1, "one frame asked for, however many deltas");
    hand.run();
    assert.ok(reads() > 0 && reads() <= 3, `read once in the frame (${reads()})`);
    assert.equal(log.scrollTop, log.scrollHeight - 400, "and the log is at the end");
    follow.dispose();
    follow.el.remove();
  } finally {
    hand.done();
  }
});

test("text drawn in a frame's callback is followed in that frame: no second frame, the layout read once", async () => {
  const hand = handFrames();
  try {
    const { log, follow, reads } = await followedLog(hand.run);
    for (let i = 0; i < 5; i++) {
      // the streamed text of one frame: a new item's worth of it, drawn in the frame's callback
      requestFrame(() => log.append(h("div", { class: "nt-assistant" }, `more ${i}`)));
      assert.equal(hand.frames.length, 1);
      const before = reads();
      hand.run();
      assert.ok(reads() - before > 0 && reads() - before <= 3, `read once in the frame (${reads() - before})`);
      assert.equal(log.scrollTop, log.scrollHeight - 400, "at the end when the frame is painted");
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.equal(hand.frames.length, 0, "no frame of its own for the follow");
    }
    follow.dispose();
    follow.el.remove();
  } finally {
    hand.done();
  }
});
