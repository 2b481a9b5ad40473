// The sanitizer against the shared corpus of hostile payloads (tests/support/hostile_payloads.json), in jsdom.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";
import DOMPurify from "dompurify";

// A DOM for node: jsdom never runs scripts nor loads resources unless asked to.
const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1:8888/lab" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "DocumentFragment", "Text"]) g[name] = (dom.window as any)[name];

import {
  ADDED_ATTR, ALLOWED_ATTR, ALLOWED_TAGS, LINK_REL, LINK_SCHEMES, OUTPUT_CLASSES,
  isDataImage, plain, renderInlineMarkdown, renderMarkdown, safeLinkUrl, setText, textNode,
} from "./sanitize";
import { h } from "../dom/dom";

interface Payload { id: string; category: string; text: string }
const corpus = JSON.parse(readFileSync(new URL("../../../tests/support/hostile_payloads.json", import.meta.url), "utf8")) as {
  remote_host: string;
  payloads: Payload[];
};
const payloads = corpus.payloads;

const TAGS = new Set<string>(ALLOWED_TAGS);
const ATTRS = new Set<string>([...ALLOWED_ATTR, ...ADDED_ATTR]);
const CLASSES = new Set<string>(OUTPUT_CLASSES);

/** Everything wrong with rendered markdown under `root`; empty when it keeps to the allow-list. */
function violations(root: Element): string[] {
  const found: string[] = [];
  for (const el of [root, ...Array.from(root.querySelectorAll("*"))]) {
    const tag = el.tagName.toLowerCase();
    if (el.namespaceURI !== "http://www.w3.org/1999/xhtml") found.push(`foreign element <${tag}> (${el.namespaceURI})`);
    if (!TAGS.has(tag)) found.push(`element <${tag}>`);
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on")) found.push(`event handler ${name} on <${tag}>`);
      else if (!ATTRS.has(name)) found.push(`attribute ${name} on <${tag}>`);
    }
    for (const cls of Array.from(el.classList)) if (!CLASSES.has(cls)) found.push(`class ${cls}`);
    if (tag === "a") {
      const href = el.getAttribute("href");
      const url = safeLinkUrl(href);
      if (!url) found.push(`link without an allowed URL: ${href}`);
      else {
        if (!(LINK_SCHEMES as readonly string[]).includes(url.protocol)) found.push(`link scheme ${url.protocol}`);
        if (href !== url.href) found.push(`link not normalized: ${href}`);
        if (el.getAttribute("target") !== "_blank") found.push("link not in a new tab");
        if (el.getAttribute("rel") !== LINK_REL) found.push(`link rel ${el.getAttribute("rel")}`);
        if (el.getAttribute("title") !== url.href) found.push("link without its URL as title");
      }
    }
    if (tag === "img" && !isDataImage(el.getAttribute("src"))) found.push(`image src ${el.getAttribute("src")}`);
    for (const name of ["src", "href"]) {
      const value = el.getAttribute(name);
      if (value && /^\s*(?:javascript|vbscript|file):/i.test(value)) found.push(`${name}=${value}`);
      if (name === "src" && value && !value.startsWith("data:")) found.push(`remote src ${value}`);
    }
  }
  return found;
}

/** Render, check; then serialize and parse again (where mutation XSS shows) and check that too. */
function check(text: string): { el: HTMLElement; problems: string[] } {
  const el = renderMarkdown(text);
  const problems = violations(el);
  const again = document.createElement("div");
  again.className = "nt-md";
  again.innerHTML = el.innerHTML;
  problems.push(...violations(again).map((p) => `after a re-parse: ${p}`));
  return { el, problems };
}

test(`the corpus holds at least 50 hostile payloads (${payloads.length})`, () => {
  assert.ok(payloads.length >= 50);
  assert.equal(new Set(payloads.map((p) => p.id)).size, payloads.length);
});

for (const payload of payloads) {
  test(`markdown keeps to the allow-list: ${payload.id}`, () => {
    const { problems } = check(payload.text);
    assert.deepEqual(problems, []);
  });
}

for (const payload of payloads) {
  test(`inline markdown (prompt questions) keeps to the allow-list: ${payload.id}`, () => {
    const el = renderInlineMarkdown(payload.text);
    assert.equal(el.tagName, "SPAN");
    assert.deepEqual(violations(el), []);
  });
}

test("every payload at once keeps to the allow-list", () => {
  const { problems } = check(payloads.map((p) => p.text).join("\n\n"));
  assert.deepEqual(problems, []);
});

test("streamed prefixes of every payload keep to the allow-list (the widget renders partial text)", () => {
  for (const payload of payloads) {
    for (let end = 1; end < payload.text.length; end += Math.max(1, Math.floor(payload.text.length / 12))) {
      const { problems } = check(payload.text.slice(0, end));
      assert.deepEqual(problems, [], `${payload.id}[:${end}]`);
    }
  }
});

test("the checker is not vacuous: DOMPurify's default html profile fails it on the corpus", () => {
  const failing = payloads.filter((p) => {
    const div = document.createElement("div");
    div.className = "nt-md";
    // After other text, as in a reply (a leading <style> would be parsed into <head> and dropped).
    div.innerHTML = DOMPurify(dom.window as any).sanitize(`<p>Sure.</p>${p.text}`, { USE_PROFILES: { html: true } }) as string;
    return violations(div).length > 0;
  });
  const ids = failing.map((p) => p.id);
  for (const id of ["style-hide-body", "overlay-fixed", "form-action", "img-remote", "class-collision", "a-relative-api"]) {
    assert.ok(ids.includes(id), `${id} should fail under the default profile`);
  }
});

for (const payload of payloads) {
  test(`plain text stays text: ${payload.id}`, () => {
    const el = document.createElement("div");
    setText(el, payload.text);
    assert.equal(el.childElementCount, 0);
    assert.equal(el.textContent, plain(payload.text));
    const span = h("span", { title: payload.text }, payload.text, textNode(payload.text));
    assert.equal(span.childElementCount, 0);
    assert.equal(span.textContent, plain(payload.text) + plain(payload.text));
  });
}

const byId = (id: string) => {
  const p = payloads.find((x) => x.id === id);
  assert.ok(p, id);
  return p.text;
};

test("a remote markdown image becomes a link showing its host; nothing has a remote src", () => {
  const el = renderMarkdown(byId("md-remote-exfil"));
  assert.equal(el.querySelectorAll("img").length, 0);
  const a = el.querySelector("a.nt-md-image")!;
  assert.equal(a.textContent, `🖼 image from ${corpus.remote_host}: exfil`);
  assert.equal(a.getAttribute("href"), `https://${corpus.remote_host}/leak?q=SECRET_TOKEN`);
  assert.equal(a.getAttribute("rel"), LINK_REL);
  assert.equal(a.getAttribute("target"), "_blank");
});

test("a remote HTML image, and one on another port, become links too", () => {
  assert.equal(renderMarkdown(byId("img-remote")).querySelector("a.nt-md-image")?.textContent, `🖼 image from ${corpus.remote_host}: remote html image`);
  assert.equal(renderMarkdown(byId("img-remote-port")).querySelector("a.nt-md-image")?.textContent, `🖼 image from ${corpus.remote_host}:8080: port`);
});

test("an image in a link is shown as text inside that link (no nested links)", () => {
  const el = renderMarkdown(byId("md-img-in-link"));
  assert.equal(el.querySelectorAll("a").length, 1);
  assert.equal(el.querySelector("a span.nt-md-image")?.textContent, `🖼 image from ${corpus.remote_host}: img in link`);
});

test("images with other schemes or no URL are a text stand-in", () => {
  for (const id of ["img-javascript", "img-data-html", "md-img-svg-data", "img-protocol-relative"]) {
    const el = renderMarkdown(byId(id));
    assert.equal(el.querySelectorAll("img, a").length, 0, id);
    assert.match(el.textContent ?? "", /\[image(: .*)?\]/, id);
  }
});

test("data: images of png/jpeg/gif/webp are shown as images", () => {
  for (const id of ["img-data-png-ok", "md-data-png-ok", "img-data-png-onerror"]) {
    const img = renderMarkdown(byId(id)).querySelector("img");
    assert.ok(img && img.getAttribute("src")!.startsWith("data:image/png;base64,"), id);
    assert.deepEqual(img!.getAttributeNames().filter((n) => n.startsWith("on")), []);
  }
  assert.ok(isDataImage("data:image/webp;base64,AAAA"));
  assert.ok(!isDataImage("data:image/svg+xml;base64,AAAA"));
  assert.ok(!isDataImage("data:image/png,<svg>"));
});

test("links with other schemes become their label as text", () => {
  const labels: Record<string, string> = {
    "a-javascript": "js link", "md-javascript": "md js link", "a-javascript-case": "mixed case",
    "a-javascript-tab-entity": "tab entity", "a-javascript-entities": "entity scheme", "md-data-html": "data link",
    "a-vbscript": "vb link", "md-file": "file link", "a-protocol-relative": "protocol relative",
    "a-relative-api": "relative link", "a-tel": "tel link", "md-javascript-title": "titled",
    "md-ref-javascript": "ref link", "md-spaces-javascript": "spaced", "md-angle-javascript": "angle",
  };
  for (const [id, label] of Object.entries(labels)) {
    const el = renderMarkdown(byId(id));
    assert.equal(el.querySelectorAll("a").length, 0, id);
    assert.ok(el.textContent!.includes(label), id);
  }
});

test("a link's host is shown after a label that is not its URL; its URL is its title", () => {
  const el = renderMarkdown(byId("md-misleading-label"));
  const a = el.querySelector("a")!;
  assert.equal(a.textContent, "https://bank.com/login");
  assert.equal(a.getAttribute("title"), `https://${corpus.remote_host}/phish`);
  assert.equal(a.nextElementSibling?.className, "nt-md-host");
  assert.equal(a.nextElementSibling?.textContent, ` (${corpus.remote_host})`);
  // an autolink shows its URL already: no suffix
  const auto = renderMarkdown(byId("md-bare-autolink"));
  assert.equal(auto.querySelector("a")?.textContent, `https://${corpus.remote_host}/bare-autolink`);
  assert.equal(auto.querySelectorAll(".nt-md-host").length, 0);
  const mail = renderMarkdown(byId("md-mailto"));
  assert.equal(mail.querySelector("a")?.getAttribute("href"), `mailto:someone@${corpus.remote_host}`);
  assert.equal(mail.querySelector(".nt-md-host")?.textContent, ` (someone@${corpus.remote_host})`);
});

test("payload attributes on links are replaced by ours", () => {
  const a = renderMarkdown(byId("a-opener")).querySelector("a")!;
  assert.deepEqual(a.getAttributeNames().sort(), ["href", "rel", "target", "title"]);
  assert.equal(a.getAttribute("rel"), LINK_REL);
});

test("class and id from a payload are dropped", () => {
  const el = renderMarkdown(byId("class-collision") + "\n\n" + byId("md-heading-id") + "\n\n" + byId("dom-clobber"));
  assert.equal(el.querySelectorAll("[id], [name]").length, 0);
  for (const e of Array.from(el.querySelectorAll("[class]"))) assert.ok(CLASSES.has(e.className), e.className);
  assert.equal(el.querySelectorAll(".jp-Notebook, .lm-Widget, .nt-chat").length, 0);
  assert.equal(el.className, "nt-md");
});

test("style, script and code-like content is not text; code blocks show their HTML as text", () => {
  const style = renderMarkdown(byId("style-hide-body"));
  assert.equal(style.textContent!.trim(), "");
  const fence = renderMarkdown(byId("md-code-fence-html"));
  assert.ok(fence.querySelector("pre code")!.textContent!.includes("<script>alert(1)</script>"));
  const inline = renderMarkdown(byId("md-inline-code-html"));
  assert.equal(inline.querySelector("code")!.textContent, "<img src=x onerror=alert(1)>");
});

test("markdown still renders: emphasis, lists, tables (with alignment), task lists, quotes", () => {
  const el = renderMarkdown("**bold** _it_ `code`\n\n1. one\n2. two\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n> quoted\n\n- [x] done\n- [ ] open");
  assert.equal(el.querySelector("strong")?.textContent, "bold");
  assert.equal(el.querySelector("em")?.textContent, "it");
  assert.equal(el.querySelectorAll("ol li").length, 2);
  assert.equal(el.querySelector("th")?.getAttribute("align"), "left");
  assert.equal(el.querySelectorAll("td").length, 2);
  assert.equal(el.querySelector("blockquote p")?.textContent, "quoted");
  assert.ok(el.textContent!.includes("☑ done") && el.textContent!.includes("☐ open"));
  assert.equal(el.querySelectorAll("input").length, 0);
});

test("a table is wrapped in a box of its own (which scrolls sideways, not the transcript)", () => {
  const el = renderMarkdown("Before\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter");
  const table = el.querySelector("table")!;
  assert.equal(table.parentElement!.className, "nt-md-scroll");
  assert.equal(el.querySelectorAll(".nt-md-scroll").length, 1);
  // a payload cannot pose as the wrapper: classes from the payload are dropped
  assert.equal(renderMarkdown('<div class="nt-md-scroll">x</div>').querySelectorAll(".nt-md-scroll").length, 0);
});

test("inline markdown renders emphasis and code, keeps block syntax and line breaks as text", () => {
  const el = renderInlineMarkdown("Drop **12** rows from `sales`?\n- not a list\n# not a heading");
  assert.equal(el.className, "nt-md nt-md-inline");
  assert.equal(el.querySelector("strong")?.textContent, "12");
  assert.equal(el.querySelector("code")?.textContent, "sales");
  assert.equal(el.querySelectorAll("ul, li, h1, p").length, 0);
  assert.ok(el.textContent!.includes("\n- not a list\n# not a heading"));
  assert.equal(renderInlineMarkdown("<img src=x onerror=alert(1)>").querySelectorAll("img[onerror]").length, 0);
});

test("bidirectional overrides are made visible, in text and in markdown", () => {
  const text = byId("bidi-override");
  assert.ok(plain(text).includes("invoice⟨U+202E⟩gpj.exe"));
  assert.ok(plain(text).includes("⟨U+2066⟩/⟨U+2069⟩"));
  assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(renderMarkdown(text).textContent!));
  assert.equal(plain(null), "");
  assert.equal(plain(42), "42");
});

test("h() refuses event handlers, style and URL attributes (those go through this module)", () => {
  for (const key of ["onclick", "onerror", "style", "href", "src", "srcdoc", "action", "formaction"]) {
    assert.throws(() => h("div", { [key]: "x" }), key);
  }
});
