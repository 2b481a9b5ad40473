// Schema forms and clamps in jsdom: validation that clears as soon as a value is fixed, the filter.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1:8888/lab" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "DocumentFragment", "Text", "Event"]) g[name] = (dom.window as any)[name];

import { FILTER_FIELDS, schemaForm } from "./form";
import { clamp } from "../dom/clamp";
import { h } from "../dom/dom";

const schema = {
  properties: { table: { type: "string" }, n_rows: { type: "integer" }, ratio: { type: "number" }, dry_run: { type: "boolean" } },
  required: ["table", "n_rows", "ratio"],
};

function edit(input: HTMLInputElement, value: string): void {
  input.value = value;
  input.dispatchEvent(new dom.window.Event("input", { bubbles: true }));
}

test("an invalid value is marked on its field; fixing it clears the mark and the caller's error line", () => {
  const form = schemaForm(schema, { table: "sales", n_rows: 5, ratio: 1 }, "t");
  document.body.append(form.el);
  const problem = h("div", { class: "nt-error", role: "alert" });
  form.watch(problem);
  const rows = form.el.querySelector<HTMLInputElement>("#t-n_rows")!;
  const ratio = form.el.querySelector<HTMLInputElement>("#t-ratio")!;
  edit(rows, "2.5");
  edit(ratio, "");
  assert.equal(form.el.querySelector("#t-n_rows-error")!.textContent, ""); // not while typing: on submit
  assert.throws(() => form.values(), /^Error: Fix n_rows and 1 more field \(marked in the form\) before sending\.$/);
  problem.textContent = "Fix n_rows ..."; // what the caller shows from the thrown message
  assert.equal(rows.getAttribute("aria-invalid"), "true");
  assert.equal(form.el.querySelector("#t-n_rows-error")!.textContent, "Enter a whole number (not 2.5)");
  assert.equal(form.el.querySelector("#t-ratio-error")!.textContent, "Enter a number");
  assert.equal(document.activeElement, rows); // the first field to fix has focus

  edit(rows, "25");
  assert.equal(form.el.querySelector("#t-n_rows-error")!.textContent, "");
  assert.equal(rows.getAttribute("aria-invalid"), null);
  assert.equal(problem.textContent, "Fix ratio (marked in the form) before sending."); // moves on to what is left
  edit(ratio, "0.5");
  assert.equal(problem.textContent, "");
  // dry_run (optional, no default, not given, never ticked) is left out, as the call left it out.
  assert.deepEqual(form.values(), { table: "sales", n_rows: 25, ratio: 0.5 });
  form.el.remove();
});

test("labels and fields are in one grid, a row per field; a large form gets a filter", () => {
  const small = schemaForm(schema, {}, "s");
  assert.equal(small.el.querySelector(".nt-form-filter"), null);
  const rows = Array.from(small.el.querySelectorAll(".nt-form-grid > .nt-form-row"));
  assert.equal(rows.length, 4);
  assert.ok(rows.every((r) => r.firstElementChild!.classList.contains("nt-form-label")));

  const many = Object.fromEntries(Array.from({ length: FILTER_FIELDS + 3 }, (_, i) => [`opt_${i}${i % 5 ? "" : "_path"}`, { type: "string" }]));
  const big = schemaForm({ properties: many }, {}, "b");
  const filter = big.el.querySelector<HTMLInputElement>(".nt-form-filter")!;
  edit(filter, "PATH");
  const shown = Array.from(big.el.querySelectorAll<HTMLElement>(".nt-form-row")).filter((r) => !r.hidden);
  assert.deepEqual(shown.map((r) => r.querySelector("label")!.textContent), ["opt_0_path", "opt_5_path", "opt_10_path"]);
  edit(filter, "nothing like it");
  assert.equal(big.el.querySelector<HTMLElement>(".nt-form > .nt-form-help")!.hidden, false);
});

test("a clamp starts with its toggle hidden and toggles open and closed", () => {
  const box = clamp(h("div", {}, "long text"), 3, "all 5 arguments");
  const toggle = box.querySelector<HTMLButtonElement>(".nt-more")!;
  assert.ok(box.firstElementChild!.classList.contains("nt-clamp-3"));
  assert.equal(toggle.hidden, true); // shown only once layout finds more than fits
  toggle.click();
  assert.ok(box.classList.contains("nt-open"));
  assert.equal(toggle.textContent, "Show less");
  assert.equal(toggle.getAttribute("aria-expanded"), "true");
  toggle.click();
  assert.equal(toggle.textContent, "Show all 5 arguments");
});
