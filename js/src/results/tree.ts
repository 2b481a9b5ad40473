// A JSON value as a collapsible tree: objects and arrays fold (<details>), keys and values are text.
// Also the view of a kind this front end does not know (`git.status`): its data, as it came.
import { h } from "../dom/dom";

/** Entries shown per object or array; the rest are counted. */
export const MAX_CHILDREN = 200;
/** Levels open at first. */
const OPEN_LEVELS = 2;

function scalar(value: unknown): HTMLElement {
  if (value === null) return h("span", { class: "nt-json-null" }, "null");
  if (typeof value === "string") return h("span", { class: "nt-json-string" }, JSON.stringify(value));
  if (typeof value === "number") return h("span", { class: "nt-json-number" }, String(value));
  if (typeof value === "boolean") return h("span", { class: "nt-json-bool" }, String(value));
  return h("span", { class: "nt-json-other" }, String(value));
}

function node(key: string | null, value: unknown, depth: number): HTMLElement {
  const label = key === null ? null : h("span", { class: "nt-json-key" }, `${key}: `);
  if (value === null || typeof value !== "object") return h("li", { class: "nt-json-leaf" }, label, scalar(value));
  const isArray = Array.isArray(value);
  const entries: Array<[string, unknown]> = isArray ? (value as unknown[]).map((v, i) => [String(i), v]) : Object.entries(value as object);
  const brief = isArray ? `[${entries.length}]` : `{${entries.length}}`;
  if (entries.length === 0) return h("li", { class: "nt-json-leaf" }, label, h("span", { class: "nt-json-brief" }, isArray ? "[]" : "{}"));
  const list = h("ul", { class: "nt-json-list", role: "group" });
  for (const [k, v] of entries.slice(0, MAX_CHILDREN)) list.append(node(k, v, depth + 1));
  if (entries.length > MAX_CHILDREN) list.append(h("li", { class: "nt-json-more" }, `… ${entries.length - MAX_CHILDREN} more`));
  const fold = h("details", { class: "nt-json-fold", open: depth < OPEN_LEVELS },
    h("summary", {}, label, h("span", { class: "nt-json-brief" }, brief)), list);
  return h("li", { class: "nt-json-branch" }, fold);
}

/** `value` as a tree (`ul.nt-json`). */
export function renderTree(value: unknown): HTMLElement {
  return h("ul", { class: "nt-json", role: "tree" }, node(null, value, 0));
}
