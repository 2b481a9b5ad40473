// Small DOM helpers: elements are built with text nodes, never from untrusted HTML.
// Untrusted text reaches the DOM only through ../text/sanitize (textNode, setText, renderMarkdown).
import { renderMarkdown, textNode } from "../text/sanitize";

type Attrs = Record<string, string | boolean | undefined>;

// Attributes h() never sets: handlers run code, style can cover the page, URLs make requests.
// Nothing in this widget needs them; a link from the model is built by ../text/sanitize.
const REFUSED_ATTR = /^(?:on.*|style|href|src|srcset|srcdoc|action|formaction|xlink:href)$/i;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (REFUSED_ATTR.test(key)) throw new Error(`h() does not set ${key}`);
    if (value === undefined || value === false) continue;
    if (key === "class") el.className = String(value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    el.append(typeof child === "string" ? textNode(child) : child);
  }
  return el;
}

/** Model text as markdown, sanitized by ../text/sanitize's allow-list. */
export function markdown(text: string): HTMLElement {
  return renderMarkdown(text);
}

/** Arguments as compact, readable text. */
export function formatArgs(input: Record<string, unknown> | undefined): string {
  if (!input || Object.keys(input).length === 0) return "";
  return JSON.stringify(input, null, 1).replace(/\n\s*/g, " ");
}

/** Save `blob` as a file named `filename` (a Blob URL, revoked a minute later); never rendered here. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a"); // not h(): it refuses href, which takes only our blob URL here
  link.href = url;
  link.download = filename;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
