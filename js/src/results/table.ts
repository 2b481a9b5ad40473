// A DataFrame as a table: sticky header with dtypes, shape, and pages asked of the kernel, which reads
// them from the live frame it keeps (`result_page` -> one `result_rows`). Only a page is ever here.
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import type { KernelMsgOf } from "../wire/protocol";
import type { ResultsContext } from "./context";
import { cellText } from "./format";

/** How long a page may take before the table says the kernel did not answer. */
export const PAGE_WAIT_MS = 15_000;

export interface TableData {
  columns?: unknown;
  dtypes?: unknown;
  shape?: unknown;
  page_size?: unknown;
  start?: unknown;
  index?: unknown;
  rows?: unknown;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const whole = (v: unknown, fallback: number): number => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : fallback);

let requests = 0;

export function renderTable(data: TableData, toolUseId: string, ctx: ResultsContext): HTMLElement {
  const columns = list(data.columns).map(String);
  const dtypes = list(data.dtypes).map(String);
  const shape = list(data.shape);
  const total = whole(shape[0], list(data.rows).length);
  const width = whole(shape[1], columns.length);
  const size = Math.max(1, whole(data.page_size, 50));

  const head = h("tr", {}, h("th", { class: "nt-index", scope: "col" }, ""));
  columns.forEach((name, i) => head.append(h("th", { scope: "col" }, h("span", { class: "nt-col-name" }, name), dtypes[i] ? h("span", { class: "nt-dtype" }, dtypes[i]) : null)));
  const body = h("tbody");
  const table = h("table", { class: "nt-table" }, h("thead", {}, head), body);
  const scroll = h("div", { class: "nt-table-scroll", tabindex: "0", role: "region", "aria-label": `Table, ${total} rows` }, table);
  const position = h("span", { class: "nt-page-position", "aria-live": "polite" });
  const problem = h("span", { class: "nt-page-error", role: "alert", hidden: true });
  const button = (label: string, text: string) => h("button", { class: "nt-btn nt-page-btn", type: "button", "aria-label": label }, text);
  const first = button("First page", "« First");
  const prev = button("Previous page", "‹ Prev");
  const next = button("Next page", "Next ›");
  const last = button("Last page", "Last »");
  const pager = h("div", { class: "nt-pager" }, first, prev, position, next, last, problem);
  const meta = h("div", { class: "nt-table-meta" }, `${total.toLocaleString()} rows × ${width.toLocaleString()} columns${width > columns.length ? ` (the first ${columns.length} shown)` : ""}`);
  // The pager above the rows: a page of 50 rows is taller than the log, and turning it needs no scrolling.
  const view = h("div", { class: "nt-table-view" }, meta, pager, scroll);

  let start = whole(data.start, 0);
  let waiting: (() => void) | null = null;
  const show = (from: number, index: unknown[], rows: unknown[]) => {
    start = from;
    body.replaceChildren(...rows.map((row, r) => {
      const tr = h("tr", {}, h("th", { class: "nt-index", scope: "row" }, cellText(index[r] ?? from + r)));
      for (const cell of list(row)) tr.append(h("td", { class: cell === null ? "nt-null" : typeof cell === "number" ? "nt-num" : undefined }, cellText(cell)));
      return tr;
    }));
    const end = Math.min(total, from + rows.length);
    setText(position, total === 0 ? "no rows" : `rows ${(from + 1).toLocaleString()}–${end.toLocaleString()} of ${total.toLocaleString()}`);
    first.disabled = prev.disabled = from <= 0;
    next.disabled = last.disabled = end >= total;
    view.setAttribute("aria-busy", "false");
  };
  const fail = (reason: string) => {
    setText(problem, reason);
    problem.hidden = false;
    view.setAttribute("aria-busy", "false");
    show(start, [], []); // the rows of the page asked for are not here; say so instead of old rows
    setText(position, "");
    first.disabled = prev.disabled = start <= 0; // the person can still go back
  };
  const ask = (from: number) => {
    waiting?.();
    const requestId = `page-${Date.now().toString(36)}-${++requests}`;
    problem.hidden = true;
    view.setAttribute("aria-busy", "true");
    const timer = window.setTimeout(() => {
      stop();
      waiting = null;
      fail(`the kernel did not answer within ${PAGE_WAIT_MS / 1000} s`);
    }, PAGE_WAIT_MS);
    const stop = ctx.onMessage((msg) => {
      if (msg.type !== "result_rows" || msg.request_id !== requestId) return;
      const reply = msg as KernelMsgOf<"result_rows">;
      window.clearTimeout(timer);
      stop();
      waiting = null;
      if (reply.error) {
        start = from;
        fail(reply.error);
      } else show(reply.start, reply.index, reply.rows);
    });
    waiting = () => {
      window.clearTimeout(timer);
      stop();
    };
    ctx.send({ type: "result_page", request_id: requestId, tool_use_id: toolUseId, start: from });
  };
  const lastStart = Math.max(0, Math.floor((total - 1) / size) * size);
  first.addEventListener("click", () => ask(0));
  prev.addEventListener("click", () => ask(Math.max(0, start - size)));
  next.addEventListener("click", () => ask(Math.min(lastStart, start + size)));
  last.addEventListener("click", () => ask(lastStart));
  // Keyboard: with the table focused, PageDown / PageUp turn the page (Home / End: first, last).
  scroll.addEventListener("keydown", (event) => {
    const target = { PageDown: next, PageUp: prev, Home: first, End: last }[event.key];
    if (!target || target.disabled || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    target.click();
  });
  show(start, list(data.index), list(data.rows));
  return view;
}
