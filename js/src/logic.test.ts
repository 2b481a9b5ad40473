import { test } from "node:test";
import assert from "node:assert/strict";
import { accepts, filterOptions, formatBytes, parseEditedAnswer, planChunks, secondsLeft, statusLine, withTimeout, CHUNK_BYTES, MAX_CHUNK_BYTES } from "./logic";

test("planChunks covers the file in chunks of at most 4 MiB", () => {
  const size = 12 * 1024 * 1024 + 5;
  const ranges = planChunks(size);
  assert.equal(ranges.length, 4);
  assert.deepEqual(ranges[0], [0, CHUNK_BYTES]);
  assert.equal(ranges[3][1], size);
  assert.ok(ranges.every(([a, b]) => b - a <= CHUNK_BYTES && CHUNK_BYTES + 64 * 1024 === MAX_CHUNK_BYTES));
  for (let i = 1; i < ranges.length; i++) assert.equal(ranges[i][0], ranges[i - 1][1]);
  assert.deepEqual(planChunks(0), [[0, 0]]);
  assert.throws(() => planChunks(10, MAX_CHUNK_BYTES + 1));
});

test("accepts follows the input element's accept rules", () => {
  assert.ok(accepts("", "x.bin", ""));
  assert.ok(accepts(".csv, .tsv", "Data.CSV", "text/csv"));
  assert.ok(!accepts(".csv", "image.png", "image/png"));
  assert.ok(accepts("image/*", "a.png", "image/png"));
  assert.ok(accepts("application/json", "a", "application/json"));
});

test("filterOptions is case-insensitive and keeps order", () => {
  assert.deepEqual(filterOptions(["Price", "qty", "price_eur"], "PRI"), ["Price", "price_eur"]);
  assert.deepEqual(filterOptions(["a", "b"], "  "), ["a", "b"]);
});

test("formatting helpers", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(secondsLeft(100, 60, 130.2), 30);
  assert.equal(secondsLeft(100, null, 130), null);
  assert.equal(statusLine("idle", {}), "idle");
  assert.equal(statusLine("awaiting_frontend_tools", { input_tokens: 1200, output_tokens: 5 }), "awaiting frontend tools · 1,200 in / 5 out tokens");
});

import { coerceArg, parseSlash, splitWords } from "./logic";

test("coerceArg follows the schema's type", () => {
  assert.equal(coerceArg("42", { type: "integer" }), 42);
  assert.throws(() => coerceArg("4.2", { type: "integer" }), /not a whole number/);
  assert.equal(coerceArg("4.5", { type: "number" }), 4.5);
  assert.equal(coerceArg("yes", { type: "boolean" }), true);
  assert.equal(coerceArg(" keep spaces ", { type: "string" }), " keep spaces ");
  assert.deepEqual(coerceArg('["a", 1]', {}), ["a", 1]);
  assert.equal(coerceArg("not json", {}), "not json");
});

test("slash commands", () => {
  assert.equal(parseSlash("hello"), null);
  assert.deepEqual(parseSlash("/help"), { kind: "help" });
  assert.deepEqual(parseSlash("/tools"), { kind: "tools" });
  assert.deepEqual(parseSlash("/clear"), { kind: "clear" });
  assert.deepEqual(parseSlash("/status"), { kind: "status" });
  assert.deepEqual(parseSlash('/tool refresh --source "s3 bucket" --force'), { kind: "tool", name: "refresh", args: { source: "s3 bucket", force: "true" } });
  assert.deepEqual(parseSlash("/refresh --source=disk"), { kind: "tool", name: "refresh", args: { source: "disk" } });
  assert.equal(parseSlash("/tool")?.kind, "error");
  assert.equal(parseSlash("/refresh stray")?.kind, "error");
  assert.deepEqual(parseSlash("/plugins"), { kind: "plugins" });
  assert.deepEqual(parseSlash("/expand cleaning"), { kind: "plugin", name: "cleaning", action: "expand" });
  assert.deepEqual(parseSlash("/collapse cleaning"), { kind: "plugin", name: "cleaning", action: "collapse" });
  assert.deepEqual(parseSlash("/expand"), { kind: "error", message: "usage: /expand NAME" });
  assert.deepEqual(parseSlash("/collapse a b"), { kind: "error", message: "usage: /collapse NAME" });
  assert.deepEqual(parseSlash("/expand --name x"), { kind: "error", message: "usage: /expand NAME" });
  assert.equal(parseSlash("/plugins all")?.kind, "error");
  assert.deepEqual(splitWords(`a "b c" 'd e' f`), ["a", "b c", "d e", "f"]);
});

test("withTimeout settles with the promise, or rejects with the message when it is late", async () => {
  assert.equal(await withTimeout(Promise.resolve(7), 50, "late"), 7);
  let cleaned = false;
  await assert.rejects(withTimeout(new Promise(() => {}), 10, "the kernel did not answer", () => (cleaned = true)), /the kernel did not answer/);
  assert.equal(cleaned, true);
  await assert.rejects(withTimeout(Promise.reject(new Error("boom")), 50, "late"), /boom/);
});

test("parseEditedAnswer reads an edited approval back: changed arguments first, removed ones marked", () => {
  const original = { table: "sales", n_rows: 5000, dry_run: true, note: "x" };
  const answer = 'Approved with edits: {"table": "sales", "n_rows": 90, "dry_run": false, "extra": [1, 2]} (remembered for this session: these arguments)';
  const parsed = parseEditedAnswer(answer, original)!;
  assert.equal(parsed.head, "Approved with edits");
  assert.equal(parsed.tail, "(remembered for this session: these arguments)");
  assert.equal(parsed.changed, 4);
  assert.deepEqual(parsed.args.map((a) => [a.key, a.value, a.changed]), [
    ["n_rows", "90", true],
    ["dry_run", "false", true],
    ["extra", "[1,2]", true],
    ["note", null, true],
    ["table", '"sales"', false],
  ]);
});

test("parseEditedAnswer leaves every other answer alone", () => {
  assert.equal(parseEditedAnswer("Approved", {}), null);
  assert.equal(parseEditedAnswer("Denied: Approved with edits: {}", {}), null);
  assert.equal(parseEditedAnswer("Approved with edits: {not json}", {}), null);
  assert.equal(parseEditedAnswer("Approved with edits: [1, 2]", {}), null);
  // braces inside values, non-ASCII as json.dumps escapes it
  const parsed = parseEditedAnswer('Approved with edits: {"q": "a } (b) {", "name": "caf\\u00e9"}', { q: "x", name: "café" })!;
  assert.deepEqual(parsed.args.map((a) => [a.key, a.changed]), [["q", true], ["name", false]]);
  assert.equal(parsed.tail, "");
});
