// A jsdom window for the result views' node tests (imported first by each of them).
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1/" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "DocumentFragment", "KeyboardEvent", "MouseEvent", "Event", "Blob"]) g[name] = (dom.window as any)[name];

/** Strings that would run code or pose as markup if they reached the DOM as HTML. */
export const HOSTILE = [
  `<img src=x onerror="globalThis.pwned=1">`,
  `<script>globalThis.pwned=1</script>`,
  `"><svg onload=globalThis.pwned=1>`,
  `</span><b>bold</b><span class="hljs-x">`,
  `javascript:globalThis.pwned=1`,
  `&lt;img src=x onerror=alert(1)&gt;`,
  "invoice\u202Egpj.exe",
];

/** The element has no element or attribute a payload could have made (only ours). */
export function noInjectedMarkup(el: Element): void {
  for (const node of Array.from(el.querySelectorAll("*"))) {
    const tag = node.tagName.toLowerCase();
    if (["script", "svg", "iframe", "object", "embed", "style"].includes(tag)) throw new Error(`injected <${tag}>`);
    for (const attr of Array.from(node.attributes)) {
      if (/^on/i.test(attr.name)) throw new Error(`injected ${attr.name} on <${tag}>`);
      if (attr.name === "src" && !attr.value.startsWith("data:image/")) throw new Error(`src ${attr.value}`);
      if (attr.name === "href") throw new Error(`href ${attr.value}`);
    }
  }
  if ((globalThis as Record<string, unknown>).pwned) throw new Error("a payload ran");
}
