// The diff view in jsdom: hunks with line numbers, the unified/side-by-side toggle, colouring, and
// hostile file text and paths as text.
import { HOSTILE, noInjectedMarkup } from "./testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import { hunksOf, renderDiff } from "./diff";

const before = Array.from({ length: 30 }, (_, i) => `line_${i} = ${i}`).join("\n") + "\n";
const after = before.replace("line_3 = 3", "line_3 = 33").replace("line_25 = 25\n", "line_25 = 25\nadded = True\n");

test("two separate changes are two hunks with their line numbers", () => {
  const hunks = hunksOf(before, after)!;
  assert.equal(hunks.length, 2);
  const el = renderDiff({ path: "calc.py", original: before, modified: after }, "");
  assert.deepEqual(Array.from(el.querySelectorAll("tr.nt-hunk")).map((r) => r.textContent), ["@@ -1,7 +1,7 @@", "@@ -24,6 +24,7 @@"]);
  const del = el.querySelector("tr.nt-del")!;
  const add = el.querySelector("tr.nt-add")!;
  assert.deepEqual([del.children[0].textContent, del.children[1].textContent], ["4", ""]);
  assert.deepEqual([add.children[0].textContent, add.children[1].textContent], ["", "4"]);
  assert.ok(el.querySelector(".hljs-number"), "python is coloured");
});

test("the toggle shows the change side by side, and back", () => {
  const el = renderDiff({ path: "calc.py", original: before, modified: after }, "");
  const toggle = el.querySelector(".nt-diff-toggle") as HTMLButtonElement;
  toggle.click();
  assert.equal(toggle.getAttribute("aria-pressed"), "true");
  const split = el.querySelector(".nt-diff-split")!;
  const row = Array.from(split.querySelectorAll("tr")).find((r) => r.querySelector("td.nt-del"))!;
  assert.match(row.querySelector("td.nt-del")!.textContent!, /line_3 = 3$/);
  assert.match(row.querySelector("td.nt-add")!.textContent!, /line_3 = 33$/);
  toggle.click();
  assert.ok(el.querySelector(".nt-diff-unified"));
});

test("a new file is all additions; no change says so", () => {
  const el = renderDiff({ path: "new.txt", original: "", modified: "a\nb\n", is_new: true }, "");
  assert.equal(el.querySelectorAll("tr.nt-add").length, 2);
  assert.ok(el.querySelector(".nt-diff-new"));
  assert.match(renderDiff({ path: "x", original: "same", modified: "same" }, "").textContent!, /No changes/);
});

test("hostile paths and lines stay text in both layouts", () => {
  for (const evil of HOSTILE) {
    const el = renderDiff({ path: evil, original: `${evil}\nkeep\n`, modified: `keep\n${evil}${evil}\n` }, "xml");
    noInjectedMarkup(el);
    (el.querySelector(".nt-diff-toggle") as HTMLButtonElement).click();
    noInjectedMarkup(el);
    assert.ok(el.textContent!.includes(evil.replace("\u202E", "⟨U+202E⟩")));
  }
});
