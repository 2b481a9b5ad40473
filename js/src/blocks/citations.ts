// A reply's citations: numbered footnote marks after the cited text (the cited words as the mark's
// tooltip) and a "Sources" list under the reply. A mark is put into the model's markdown as a
// private-use placeholder before it is rendered and sanitized, then replaced by an element, so marks
// never change how the markdown parses, and model text cannot forge one (its placeholders are removed).
import type { Mark, Source } from "../wire/protocol";
import { h, markdown } from "../dom/dom";
import { plain } from "../text/sanitize";
import { webLink } from "./links";

const OPEN = "\uE000";
const CLOSE = "\uE001";
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** The text with a placeholder for each mark at its offset (offsets past the end go at the end). */
export function withPlaceholders(text: string, marks: Mark[] | undefined): string {
  let out = text.replace(/[\uE000\uE001]/g, "");
  const at = new Map<number, number[]>();
  for (const mark of marks ?? []) {
    if (!Number.isInteger(mark.at) || !Number.isInteger(mark.n)) continue;
    const offset = Math.min(Math.max(mark.at, 0), out.length);
    at.set(offset, [...(at.get(offset) ?? []), mark.n]);
  }
  for (const offset of [...at.keys()].sort((a, b) => b - a)) {
    out = out.slice(0, offset) + at.get(offset)!.map((n) => `${OPEN}${n}${CLOSE}`).join("") + out.slice(offset);
  }
  return out;
}

/** The model's markdown with its footnote marks (`sup.nt-cite`), sanitized like every message. */
export function renderCited(text: string, marks: Mark[] | undefined): HTMLElement {
  const box = markdown(withPlaceholders(text, marks));
  const quotes = new Map((marks ?? []).map((m) => [m.n, m.quote]));
  const walker = document.createTreeWalker(box, 4 /* NodeFilter.SHOW_TEXT */);
  const found: Text[] = [];
  while (walker.nextNode()) if ((walker.currentNode.nodeValue ?? "").includes(OPEN)) found.push(walker.currentNode as Text);
  for (const node of found) {
    const value = node.nodeValue ?? "";
    const parts: Array<Node> = [];
    let last = 0;
    for (const match of value.matchAll(PLACEHOLDER)) {
      parts.push(document.createTextNode(value.slice(last, match.index)));
      const n = Number(match[1]);
      const quote = quotes.get(n) ?? "";
      parts.push(h("sup", { class: "nt-cite", title: plain(quote) || undefined, "aria-label": `source ${n}` }, `[${n}]`));
      last = (match.index ?? 0) + match[0].length;
    }
    parts.push(document.createTextNode(value.slice(last)));
    node.replaceWith(...parts);
  }
  return box;
}

/** The "Sources" list under a reply, numbered as its marks; null when it cites nothing. */
export function renderSources(sources: Source[] | undefined): HTMLElement | null {
  if (!sources?.length) return null;
  const list = h("ol", { class: "nt-sources-list" });
  for (const source of [...sources].sort((a, b) => a.n - b.n)) {
    const row = h("li", { value: String(source.n), title: plain(source.quote) || undefined }, webLink(source.title, source.url));
    list.append(row);
  }
  return h("div", { class: "nt-sources", role: "doc-endnotes" }, h("div", { class: "nt-sources-head" }, "Sources"), list);
}
