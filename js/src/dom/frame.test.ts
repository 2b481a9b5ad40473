// The widget's frames (frame.ts): a frame's writes, then every hook, each on its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { onFrameWrites, requestFrame } from "./frame";

test("after a frame's writes every hook runs, in the same frame, even when the writes or a hook throw", () => {
  const frames: Array<() => void> = [];
  const g = globalThis as Record<string, unknown>;
  g.requestAnimationFrame = (fn: () => void) => frames.push(fn);
  const reported: unknown[] = [];
  g.reportError = (err: unknown) => reported.push(err);
  try {
    const seen: string[] = [];
    const stops = [
      onFrameWrites(() => seen.push("first")),
      onFrameWrites(() => {
        throw new Error("a broken hook");
      }),
      onFrameWrites(() => seen.push("third")),
    ];
    requestFrame(() => seen.push("writes"));
    frames.splice(0).forEach((fn) => fn());
    assert.deepEqual(seen, ["writes", "first", "third"]);
    requestFrame(() => {
      throw new Error("broken writes");
    });
    assert.throws(() => frames.splice(0).forEach((fn) => fn()), /broken writes/);
    assert.deepEqual(seen, ["writes", "first", "third", "first", "third"], "the hooks ran all the same");
    assert.equal(reported.length, 2, "each hook's error is reported, not lost");
    stops.forEach((stop) => stop());
    requestFrame(() => seen.push("alone"));
    frames.splice(0).forEach((fn) => fn());
    assert.deepEqual(seen.slice(-1), ["alone"], "a stopped hook runs no more");
  } finally {
    delete g.reportError;
    delete g.requestAnimationFrame;
  }
});
