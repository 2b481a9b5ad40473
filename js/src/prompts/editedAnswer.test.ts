// Reading an edited approval back (editedAnswer.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseEditedAnswer } from "./editedAnswer";

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
