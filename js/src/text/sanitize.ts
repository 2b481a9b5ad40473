// The one module through which untrusted text reaches the DOM.
//
// Untrusted: everything the model, a tool, a file name or the kernel can say. Two ways in:
//   - renderMarkdown(text): the model's markdown, parsed by `marked`, then cleaned by DOMPurify with
//     an explicit allow-list (below). No <style>, no style=, no forms or frames, no SVG/MathML, no
//     class/id from the payload, no event handlers. Images only from data:image/(png|jpeg|gif|webp);
//     a remote image becomes a link "🖼 image from HOST", fetched only if the person clicks it.
//     Links keep http/https/mailto only, open in a new tab with rel="noopener noreferrer nofollow",
//     carry their full URL as title and show their host after the label when the label differs.
//   - renderInlineMarkdown(text): the same, for one line of inline markdown (a prompt's question):
//     emphasis, code, links; block syntax stays text.
//   - setText(el, text) / textNode(text): everything else, as text (textContent), never as HTML.
//   - streamed.ts draws streamed markdown a few blocks at a time, through lexBlocks and blocksFragment
//     below: the same parser, the same sanitizer, the same allow-list, the same DOM as renderMarkdown.
// Both make bidirectional-override characters visible, so text cannot pose as something else
// ("invoice", U+202E, "gpj.exe" reads as "invoiceexe.jpg"; it is shown as "invoice⟨U+202E⟩gpj.exe").
import DOMPurify from "dompurify";
import type { Config, DOMPurify as Purifier } from "dompurify";
import { Lexer, Marked, type Token, type TokensList } from "marked";

/** Elements markdown may produce. Everything else is removed (its text kept, unless it is code or style). */
export const ALLOWED_TAGS = [
  "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em",
  "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre",
  "s", "samp", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
  "tr", "u", "ul", "var",
] as const;

/** Attributes a payload may keep (URLs are checked again by the hooks). */
export const ALLOWED_ATTR = ["href", "src", "alt", "title", "colspan", "rowspan", "align", "start"] as const;

/** Attributes this module sets itself on what it outputs (never taken from a payload). */
export const ADDED_ATTR = ["target", "rel", "class"] as const;

/** Classes this module puts on what it outputs; nothing else has a class inside rendered markdown. */
export const OUTPUT_CLASSES = ["nt-md", "nt-md-inline", "nt-md-host", "nt-md-image", "nt-md-blocked", "nt-md-scroll"] as const;

export const LINK_SCHEMES = ["http:", "https:", "mailto:"] as const;
export const LINK_REL = "noopener noreferrer nofollow";

const FORBID_TAGS = [
  "style", "script", "noscript", "template", "form", "input", "button", "select", "option", "textarea",
  "iframe", "frame", "frameset", "object", "embed", "base", "meta", "link", "svg", "math", "dialog",
  "video", "audio", "source", "picture", "details", "summary",
];
const FORBID_ATTR = ["style", "class", "id", "name", "srcset", "background", "poster", "action", "formaction", "ping"];

const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  ALLOWED_TAGS: [...ALLOWED_TAGS],
  ALLOWED_ATTR: [...ALLOWED_ATTR],
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOW_SELF_CLOSE_IN_ATTR: false,
  // href/src must be absolute http(s)/mailto; data: passes only on <img> (DOMPurify's data-URI tags),
  // and the hook then keeps only data:image/(png|jpeg|gif|webp). The other allowed attributes are
  // not URLs, so the URL rule does not apply to them.
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  ADD_URI_SAFE_ATTR: ["align", "colspan", "rowspan", "start"],
  SAFE_FOR_XML: true,
  WHOLE_DOCUMENT: false,
  // Nodes, never a string: no serialize-and-parse round trip for mutation XSS to hide in.
  RETURN_DOM_FRAGMENT: true,
};

/** The URL of a link the person may follow, normalized, or null (other schemes, relative URLs, junk). */
export function safeLinkUrl(href: string | null | undefined): URL | null {
  if (!href) return null;
  let url: URL;
  try {
    url = new URL(href); // relative URLs throw: there is no base
  } catch {
    return null;
  }
  return (LINK_SCHEMES as readonly string[]).includes(url.protocol) ? url : null;
}

/** Whether `src` is an image the widget may show without a request: a data: URL of png/jpeg/gif/webp. */
export function isDataImage(src: string | null | undefined): boolean {
  return !!src && DATA_IMAGE.test(src);
}

/** Untrusted text as it is shown: a string, with bidirectional overrides made visible. */
export function plain(text: unknown): string {
  const s = text === null || text === undefined ? "" : String(text);
  return s.replace(BIDI_CONTROLS, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase()}⟩`);
}

/** A text node of untrusted text. */
export function textNode(text: unknown): Text {
  return document.createTextNode(plain(text));
}

/** Set an element's content to untrusted text (textContent: never parsed as HTML). */
export function setText(el: Element, text: unknown): void {
  el.textContent = plain(text);
}

let purifier: Purifier | null = null;
// Images seen by the hook during the current (synchronous) sanitize call: element -> its URL as given.
let images: Map<Element, string> | null = null;

function getPurifier(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeType !== 1) return;
    const el = node as Element;
    if (el.tagName === "A") {
      const url = safeLinkUrl(el.getAttribute("href"));
      for (const name of ["href", "title", "target", "rel"]) el.removeAttribute(name);
      if (url) {
        el.setAttribute("href", url.href);
        el.setAttribute("title", url.href);
        el.setAttribute("target", "_blank");
        el.setAttribute("rel", LINK_REL);
      }
    } else if (el.tagName === "IMG") {
      const src = el.getAttribute("src") ?? "";
      if (!isDataImage(src)) {
        el.removeAttribute("src"); // before the node ever reaches a live document
        images?.set(el, src);
      }
    }
  });
  purifier = p;
  return p;
}

const md = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  // Task lists: a symbol, not an <input> (inputs are not allowed).
  renderer: { checkbox: ({ checked }) => (checked ? "☑" : "☐") },
});

/** Reference-link definitions as marked keeps them (`[label]: href "title"`). */
export type LinkDefs = TokensList["links"];

/** The source as marked reads it: bidirectional overrides made visible, line ends as "\n". */
export function markdownSource(text: unknown): string {
  return plain(text).replace(/\r\n|\r/g, "\n");
}

/** Block tokens of `source` (from markdownSource), its inline links resolved against `known` definitions
 * (made earlier in the text) and its own; what md.parse would lex, for streamed.ts. */
export function lexBlocks(source: string, known: LinkDefs): TokensList {
  const lexer = new Lexer({ ...md.defaults });
  Object.assign(lexer.tokens.links, known);
  return lexer.lex(source);
}

// Put before a chunk that does not start the reply, so that the HTML parser reads it in the state the
// whole reply would leave it in there (in <body>, framesets no longer allowed, nothing open), not at
// the start of a document (where <title> or <meta> would go to <head>). Removed after sanitizing.
const AFTER_CONTENT = "<p>.</p>";

/** Sanitized nodes of block tokens (some of a reply's top-level tokens, in order), or null if they
 * cannot be drawn alone; `first` when they start the reply. */
export function blocksFragment(tokens: Token[], first: boolean): DocumentFragment | null {
  const html = md.parser(tokens) as string;
  if (first) return sanitizeHtml(html);
  const fragment = sanitizeHtml(AFTER_CONTENT + html);
  const lead = fragment.firstChild;
  if (!(lead instanceof HTMLElement) || lead.tagName !== "P" || lead.textContent !== ".") return null;
  lead.remove();
  return fragment;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  e.textContent = text;
  return e;
}

function hostOf(url: URL): string {
  return url.protocol === "mailto:" ? decodeURIComponentSafe(url.pathname) : url.host;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A remote (or otherwise refused) image: a link to it, showing where it is; nothing is fetched. */
function imageStandIn(img: Element, src: string): Node {
  const alt = plain(img.getAttribute("alt") ?? "").trim();
  const url = safeLinkUrl(src);
  if (!url || url.protocol === "mailto:") return el("span", "nt-md-blocked", alt ? `[image: ${alt}]` : "[image]");
  const label = `🖼 image from ${url.host}${alt ? `: ${alt}` : ""}`;
  // Inside a link already: text only (no nested links).
  if (img.parentElement?.closest("a")) return el("span", "nt-md-image", label);
  const a = el("a", "nt-md-image", label);
  a.setAttribute("href", url.href);
  a.setAttribute("title", url.href);
  a.setAttribute("target", "_blank");
  a.setAttribute("rel", LINK_REL);
  return a;
}

function unwrap(node: Element): void {
  node.replaceWith(...Array.from(node.childNodes));
}

/** Sanitize HTML (as `marked` produces it) into nodes; exported for tests. */
export function sanitizeHtml(html: string): DocumentFragment {
  const p = getPurifier();
  const seen = new Map<Element, string>();
  images = seen;
  let fragment: DocumentFragment | null;
  try {
    fragment = p.sanitize(html, CONFIG) as DocumentFragment | null;
  } finally {
    images = null;
  }
  if (!fragment) {
    // No <body> to clean (a document that is a <frameset>): show the source as text.
    fragment = document.createDocumentFragment();
    fragment.append(textNode(html));
    return fragment;
  }
  for (const [img, src] of seen) img.replaceWith(imageStandIn(img, src));
  for (const a of Array.from(fragment.querySelectorAll("a"))) {
    if (a.classList.contains("nt-md-image")) continue;
    const url = safeLinkUrl(a.getAttribute("href"));
    if (!url) {
      unwrap(a); // a javascript:, data:, file:, relative ... link: its label stays, as text
      continue;
    }
    const label = (a.textContent ?? "").trim();
    const host = hostOf(url);
    const shown = [url.href, url.href.replace(/\/$/, ""), host, url.href.replace(/^mailto:/, "")];
    if (!shown.includes(label)) a.after(el("span", "nt-md-host", ` (${host})`));
  }
  // A wide table scrolls sideways inside its own box, never the transcript around it.
  for (const table of Array.from(fragment.querySelectorAll("table"))) {
    const box = el("div", "nt-md-scroll", "");
    table.replaceWith(box);
    box.append(table);
  }
  return fragment;
}

/** The model's markdown as sanitized nodes, in a `div.nt-md`. */
export function renderMarkdown(text: unknown): HTMLElement {
  return render(document.createElement("div"), "nt-md", text, (source) => md.parse(source) as string);
}

/** Inline markdown (emphasis, `code`, links) as sanitized nodes, in a `span.nt-md.nt-md-inline`. */
export function renderInlineMarkdown(text: unknown): HTMLElement {
  return render(document.createElement("span"), "nt-md nt-md-inline", text, (source) => md.parseInline(source) as string);
}

function render(box: HTMLElement, cls: string, text: unknown, parse: (source: string) => string): HTMLElement {
  box.className = cls;
  const source = plain(text);
  let html: string;
  try {
    html = parse(source);
  } catch {
    setText(box, source);
    return box;
  }
  box.append(sanitizeHtml(html));
  return box;
}
