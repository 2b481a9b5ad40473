// Small DOM helpers: elements are built with textContent, never from untrusted HTML.
import DOMPurify from "dompurify";
import { marked } from "marked";

type Attrs = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (key === "class") el.className = String(value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

/** Model text as markdown, sanitized: scripts, event handlers and unsafe URLs are removed. */
export function markdown(text: string): HTMLElement {
  const div = h("div", { class: "nt-md" });
  const html = marked.parse(text, { async: false, gfm: true, breaks: false }) as string;
  div.innerHTML = DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
  for (const a of Array.from(div.querySelectorAll("a"))) {
    a.setAttribute("target", "_blank");
    a.setAttribute("rel", "noopener noreferrer");
  }
  return div;
}

/** Arguments as compact, readable text. */
export function formatArgs(input: Record<string, unknown> | undefined): string {
  if (!input || Object.keys(input).length === 0) return "";
  return JSON.stringify(input, null, 1).replace(/\n\s*/g, " ");
}
