// Text of values as people read them (format.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { argsSummary, countdownAnnouncement, countdownText, countdownUrgent, formatBytes, secondsLeft, statusLine } from "./format";

test("formatting helpers", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(secondsLeft(100, 60, 130.2), 30);
  assert.equal(secondsLeft(100, null, 130), null);
  assert.equal(statusLine("idle", {}), "idle");
  assert.equal(statusLine("awaiting_frontend_tools", { input_tokens: 1200, output_tokens: 5 }), "awaiting frontend tools · 1,200 in / 5 out tokens");
});

test("a prompt's countdown: readable time left, urgent near the end, announced at marks only", () => {
  assert.equal(countdownText(45), "45 s left");
  assert.equal(countdownText(125), "2:05 left");
  assert.equal(countdownText(3725), "1:02:05 left");
  assert.match(countdownText(0), /^Time is up: an answer still counts/);
  assert.equal(countdownUrgent(31, 600), false);
  assert.equal(countdownUrgent(30, 600), true);
  assert.equal(countdownUrgent(11, 20), false); // a short timeout warns for its last 10 s
  assert.equal(countdownUrgent(10, 20), true);
  assert.equal(countdownAnnouncement(60, 600), "1:00 left to answer this question.");
  assert.equal(countdownAnnouncement(59, 600), null);
  assert.equal(countdownAnnouncement(60, 60), null); // the full time is on screen when it opens
  assert.match(countdownAnnouncement(0, 60) ?? "", /Time is up/);
});

test("a tool call's arguments in one line for its header: plain values, cut with an ellipsis", () => {
  assert.equal(argsSummary({ table: "sales", n_rows: 12 }), "table: sales, n_rows: 12");
  assert.equal(argsSummary({}), "");
  assert.equal(argsSummary(undefined), "");
  assert.equal(argsSummary({ cols: ["a", "b"], where: { x: 1 }, on: true, none: null }), 'cols: ["a","b"], where: {"x":1}, on: true, none: null');
  assert.equal(argsSummary({ note: "two\n  lines" }), "note: two lines");
  const long = argsSummary({ path: "x".repeat(300) }, 40);
  assert.equal(long.length, 40);
  assert.ok(long.endsWith("…") && long.startsWith("path: xxx"));
  assert.equal(argsSummary({ html: "<b>bold</b>" }), "html: <b>bold</b>"); // text: shown as typed, never markup
});
