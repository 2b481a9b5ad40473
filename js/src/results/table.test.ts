// The table view in jsdom: header with dtypes, the first page, pages asked of the kernel by id (one
// request, one reply), errors and timeouts shown on the table, the keyboard, hostile cells as text.
import { HOSTILE, noInjectedMarkup } from "./testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KernelMsg, ViewMsg } from "../wire/protocol";
import { renderTable } from "./table";

function kernel() {
  const sent: ViewMsg[] = [];
  const handlers = new Set<(msg: KernelMsg) => void>();
  return {
    sent,
    handlers,
    ctx: { send: (m: ViewMsg) => void sent.push(m), onMessage: (f: (msg: KernelMsg) => void) => (handlers.add(f), () => void handlers.delete(f)) },
    reply: (msg: KernelMsg) => Array.from(handlers).forEach((f) => f(msg)),
  };
}

const first = { columns: ["n", "label"], dtypes: ["int64", "object"], shape: [120, 2], page_size: 50, start: 0, index: [0, 1], rows: [[0, "a"], [1, null]] };

test("the first page, the header with dtypes and the shape are shown", () => {
  const el = renderTable(first, "tb", kernel().ctx);
  assert.deepEqual(Array.from(el.querySelectorAll("thead th")).map((th) => th.textContent), ["", "nint64", "labelobject"]);
  assert.match(el.querySelector(".nt-table-meta")!.textContent!, /120 rows × 2 columns/);
  assert.equal(el.querySelectorAll("tbody tr").length, 2);
  assert.equal(el.querySelector("td.nt-null")!.textContent, "null");
  assert.equal(el.querySelector(".nt-page-position")!.textContent, "rows 1–2 of 120");
  assert.equal((el.querySelector('[aria-label="Previous page"]') as HTMLButtonElement).disabled, true);
});

test("Next asks the kernel for the next page and shows exactly its reply", () => {
  const k = kernel();
  const el = renderTable(first, "tb", k.ctx);
  (el.querySelector('[aria-label="Next page"]') as HTMLButtonElement).click();
  assert.equal(k.sent.length, 1);
  const ask = k.sent[0] as Extract<ViewMsg, { type: "result_page" }>;
  assert.deepEqual([ask.type, ask.tool_use_id, ask.start], ["result_page", "tb", 50]);
  k.reply({ type: "result_rows", request_id: "someone-else", tool_use_id: "tb", start: 50, index: [9], rows: [[9, "x"]] });
  assert.equal(el.querySelectorAll("tbody tr").length, 2); // not ours: ignored
  k.reply({ type: "result_rows", request_id: ask.request_id, tool_use_id: "tb", start: 50, index: [50, 51], rows: [[50, "p"], [51, "q"]] });
  assert.equal(el.querySelector("tbody th")!.textContent, "50");
  assert.equal(el.querySelector(".nt-page-position")!.textContent, "rows 51–52 of 120");
  assert.equal(k.handlers.size, 0); // the reply ended the wait
  (el.querySelector('[aria-label="Last page"]') as HTMLButtonElement).click();
  assert.equal((k.sent[1] as { start: number }).start, 100);
});

test("an error reply is shown on the table, and the pages before stay reachable", () => {
  const k = kernel();
  const el = renderTable(first, "tb", k.ctx);
  (el.querySelector('[aria-label="Next page"]') as HTMLButtonElement).click();
  const ask = k.sent[0] as { request_id: string };
  k.reply({ type: "result_rows", request_id: ask.request_id, tool_use_id: "tb", start: 0, index: [], rows: [], error: "this table is no longer in the kernel" });
  assert.match(el.querySelector(".nt-page-error")!.textContent!, /no longer in the kernel/);
  assert.equal((el.querySelector('[aria-label="Previous page"]') as HTMLButtonElement).disabled, false);
});

test("PageDown on the focused table turns the page", () => {
  const k = kernel();
  const el = renderTable(first, "tb", k.ctx);
  const scroll = el.querySelector(".nt-table-scroll") as HTMLElement;
  assert.equal(scroll.getAttribute("tabindex"), "0");
  scroll.dispatchEvent(new KeyboardEvent("keydown", { key: "PageDown", bubbles: true }));
  assert.equal((k.sent[0] as { start: number }).start, 50);
});

test("hostile column names, dtypes, index labels and cells stay text", () => {
  const el = renderTable({ columns: HOSTILE, dtypes: HOSTILE, shape: [HOSTILE.length, HOSTILE.length], index: HOSTILE, rows: HOSTILE.map(() => HOSTILE) }, HOSTILE[0], kernel().ctx);
  noInjectedMarkup(el);
  assert.ok(el.textContent!.includes(HOSTILE[0]));
  assert.ok(el.textContent!.includes("invoice⟨U+202E⟩gpj.exe"));
});

test("garbage data gives an empty table, not an exception", () => {
  const el = renderTable({ columns: "x", rows: 3, shape: [-1, "a"], index: null } as never, "tb", kernel().ctx);
  assert.equal(el.querySelectorAll("tbody tr").length, 0);
});
