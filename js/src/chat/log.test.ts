// The chat log's snapshot (jsdom): a view that renders while a turn runs receives that turn's items
// before its snapshot; the snapshot puts every item in the transcript's order, and a view that was
// already in step keeps its elements where they are (nothing is moved or redrawn).
import "../results/testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Item } from "../wire/protocol";
import { chatLog } from "./log";
import { RendererModules } from "../renderers/api";

function makeLog() {
  const model = { get: () => ({}), on: () => {}, off: () => {} } as never;
  const log = document.createElement("div");
  const dom = { log, loose: document.createElement("div"), root: document.createElement("div") } as never;
  const link = { send: () => {}, onMessage: () => () => {} } as never;
  return { chat: chatLog(model, dom, link, new RendererModules()), log };
}

const ids = (log: HTMLElement) => Array.from(log.children).map((el) => el.textContent);
const item = (id: string): Item => ({ id, kind: "user", text: id });

test("a snapshot after live items puts them in the transcript's order", () => {
  const { chat, log } = makeLog();
  chat.upsert(item("u2")); // the running turn's messages reached the view first
  chat.upsert(item("r2"));
  chat.snapshot([item("u0"), item("r1"), item("u2"), item("r2")]);
  assert.deepEqual(ids(log), ["u0", "r1", "u2", "r2"]);
});

test("a snapshot a view is in step with moves nothing", () => {
  const { chat, log } = makeLog();
  chat.snapshot([item("u0"), item("r1")]);
  const before = Array.from(log.children);
  chat.snapshot([item("u0"), item("r1")]); // another view said hello: the same snapshot again
  assert.deepEqual(Array.from(log.children), before);
});

test("streamed text is drawn in place: the message and its finished paragraphs are never replaced", async () => {
  const frames: FrameRequestCallback[] = [];
  (globalThis as Record<string, unknown>).requestAnimationFrame = (cb: FrameRequestCallback) => frames.push(cb);
  const flush = () => frames.splice(0).forEach((cb) => cb(0));
  const { chat, log } = makeLog();
  chat.delta("a1", "First paragraph");
  const message = log.firstElementChild!;
  chat.delta("a1", " ends here.\n\nSecond line\n"); // the first paragraph is finished once the next one's first line is whole
  flush();
  const first = message.querySelector(".nt-md > p")!;
  for (const piece of ["goes ", "on.\n\n", "Third ", "one."]) {
    chat.delta("a1", piece);
    flush();
    assert.equal(log.firstElementChild, message, "the message element stays");
    assert.equal(message.querySelector(".nt-md > p"), first, "the finished first paragraph stays");
  }
  chat.upsert({ id: "a1", kind: "assistant", text: "First paragraph ends here.\n\nSecond line\ngoes on.\n\nThird one." }); // the finished text again
  assert.equal(log.firstElementChild, message);
  assert.equal(message.querySelector(".nt-md")!.innerHTML, "<p>First paragraph ends here.</p>\n<p>Second line\ngoes on.</p>\n<p>Third one.</p>\n");
});

test("a view that renders mid-stream gets the text before its first delta from the snapshot", () => {
  const frames: FrameRequestCallback[] = [];
  (globalThis as Record<string, unknown>).requestAnimationFrame = (cb: FrameRequestCallback) => frames.push(cb);
  const flush = () => frames.splice(0).forEach((cb) => cb(0));
  const { chat, log } = makeLog();
  // the view said hello while a reply streamed: deltas of an item it never had arrive before the snapshot
  chat.delta("a1", "umn by column.");
  flush();
  chat.snapshot([item("u0"), { id: "a1", kind: "assistant", text: "Paragraph 0: the table, column by column." }]);
  flush();
  chat.delta("a1", "\n\nParagraph 1."); // sent after the snapshot: it follows the whole text
  flush();
  assert.deepEqual(ids(log), ["u0", "Paragraph 0: the table, column by column.\nParagraph 1.\n"]);
  // an item the view had whole is not redrawn by a later snapshot
  const kept = log.lastElementChild;
  chat.snapshot([item("u0"), { id: "a1", kind: "assistant", text: "Paragraph 0: the table, column by column.\n\nParagraph 1." }]);
  assert.equal(log.lastElementChild, kept);
});
