// The file prompt's transfer rules (upload.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { acceptRules, accepts, listingNote, planChunks, withTimeout, CHUNK_BYTES, MAX_CHUNK_BYTES } from "./upload";

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

test("every spelling of an extension is the same rule, as the kernel reads it", () => {
  for (const accept of [".csv", "csv", "*.csv", "CSV", " .CSV ,"]) assert.ok(accepts(accept, "prices.csv", ""), accept);
  assert.ok(!accepts("csv", "notes.txt", "text/plain"));
  assert.deepEqual(acceptRules("csv, *.TSV, image/*"), [".csv", ".tsv", "image/*"]);
  assert.deepEqual(acceptRules("*/*"), []);
  assert.ok(accepts("*", "anything.bin", ""));
});

test("withTimeout settles with the promise, or rejects with the message when it is late", async () => {
  assert.equal(await withTimeout(Promise.resolve(7), 50, "late"), 7);
  let cleaned = false;
  await assert.rejects(withTimeout(new Promise(() => {}), 10, "the kernel did not answer", () => (cleaned = true)), /the kernel did not answer/);
  assert.equal(cleaned, true);
  await assert.rejects(withTimeout(Promise.reject(new Error("boom")), 50, "late"), /boom/);
});

test("a listing says what it left out, naming the folder and the filter", () => {
  const file = { is_dir: false };
  const dir = { is_dir: true };
  assert.equal(listingNote({ entries: [file], other: 0 }, "/p", ".csv"), "");
  assert.equal(listingNote({ entries: [file], other: 2 }, "/p", ".csv"), "2 other files here are not .csv.");
  assert.equal(listingNote({ entries: [dir], other: 1, hidden: 1 }, "/p", ".csv"), "No .csv file in /p (1 other file; 1 hidden file, never offered).");
  assert.equal(listingNote({ entries: [], other: 0 }, "/p", ".csv"), "This folder is empty: /p.");
  assert.equal(listingNote({ entries: [], other: 0, hidden: 2 }, "/p", ""), "This folder is empty: /p (2 hidden files, never offered).");
});
