// Text of values as people read them (format.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatBytes, secondsLeft, statusLine } from "./format";

test("formatting helpers", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(secondsLeft(100, 60, 130.2), 30);
  assert.equal(secondsLeft(100, null, 130), null);
  assert.equal(statusLine("idle", {}), "idle");
  assert.equal(statusLine("awaiting_frontend_tools", { input_tokens: 1200, output_tokens: 5 }), "awaiting frontend tools · 1,200 in / 5 out tokens");
});
