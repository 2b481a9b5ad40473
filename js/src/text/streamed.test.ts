// Streamed markdown (streamed.ts) against rendering the text once (renderMarkdown), in jsdom: every
// reply of a corpus (the shared hostile payloads, markdown whose blocks are finished only later, long
// mixed replies) is streamed at random split points, seeded and bounded; after every delta the DOM is
// the one rendering the text so far once gives, and blocks drawn for good are never drawn again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1:8888/lab" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "DocumentFragment", "Text"]) g[name] = (dom.window as any)[name];

import { renderMarkdown } from "./sanitize";
import { FLAT, GROUP, PART_CLASS, streamedMarkdown } from "./streamed";

const hostile = (JSON.parse(readFileSync(new URL("../../../tests/support/hostile_payloads.json", import.meta.url), "utf8")) as {
  payloads: { id: string; text: string }[];
}).payloads;

/** Markdown whose early blocks a later line changes, or that is unfinished for a long time. */
export const EDGE_CASES: Record<string, string> = {
  paragraphs: "First paragraph with *emphasis*.\n\nSecond with `code` and **strong**.\n\nThird.\n",
  "loose list later": "- one\n- two\n\n- three, now the list is loose\n\nAfter the list.\n",
  "list then paragraph": "1. a\n2. b\n\nnot in the list\n\n3. c\n",
  "nested list": "- a\n  - b\n\n    more of b\n- c\n\ntext\n",
  "fence with blank lines": "Intro\n\n```python\ndef f():\n\n    return 1\n\n\n```\n\nAfter.\n",
  "unclosed fence": "Intro\n\n```\ncode\n\nstill code\n",
  "tilde fence": "~~~js\nlet a = 1;\n~~~\n\ndone\n",
  "indented code over blank lines": "Para\n\n    code 1\n\n    code 2\n\nafter\n",
  "setext heading": "Title\n=====\n\nSub\n---\n\ntext\n",
  "hash that is not a heading": "para\n#hashtag goes on\n\n#real heading\n\nx\n",
  table: "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nafter the table\n",
  "table interrupting a paragraph": "para\n| a | b |\n|---|---|\n| 1 | 2 |\n\nend\n",
  "table with br": "| a | b |\n|---|---|\n| x<br>y | 2 |\n\nend\n\nmore\n",
  "html block": "before\n\n<div>\n*not md*\n</div>\n\nafter *md*\n\nlast\n",
  "unclosed inline html": "a <b>bold never closed\n\nnext paragraph\n\nthird\n",
  "unclosed comment": "a\n\n<!-- comment\n\nstill comment\n\n-->\n\nb\n",
  "reference link defined later": "See [the docs][d] and [d].\n\nMore text.\n\n[d]: https://example.com/docs \"Docs\"\n\nEnd.\n",
  "reference defined twice": "[x]\n\n[x]: https://a.example\n\n[x]: https://b.example\n\n[x]\n",
  blockquote: "> quoted\nlazy line\n\n> another\n\nplain\n",
  "task list": "- [x] done\n- [ ] todo\n\nok\n",
  "links and images": "A [link](https://example.com) and ![img](https://example.com/a.png) and <https://auto.example>.\n\nEnd\n",
  "crlf line ends": "one\r\n\r\ntwo\r\n- a\r\n- b\r\n\r\nthree\r\n",
  "bidi": "invoice\u202Egpj.exe\n\nnext\n",
  "hr and headings": "# H1\n\n---\n\n## H2\n***\ntext\n",
  "title html at a split": "para\n\n<title>shown as text</title>\n\nmore\n",
  "trailing spaces and tabs": "a  \nb\t\n\n\t\n  \nc\n",
  "frameset": "#\n\n<frameset><frame src=x></frameset>\n\nx\n",
  "empty": "",
};

/** A long reply as a model writes one: prose, lists, code, a table, repeated. */
function longReply(chars: number, seed: number): string {
  const rand = mulberry32(seed);
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const kind = Math.floor(rand() * 5);
    const part = [
      `Paragraph ${i} explains *one thing* and **another**, with \`code\` and a [link](https://example.com/${i}).\nIt goes on for a second line.\n\n`,
      `- item ${i}\n- item with **bold**\n  continued\n\n`,
      "```python\n" + `for k in range(${i}):\n    print(k)\n\n` + "print('done')\n```\n\n",
      `| col | value |\n|---|---|\n| a | ${i} |\n| b | ${i * 2} |\n\n`,
      `### Heading ${i}\n\n> a quote\n> on two lines\n\n`,
    ][kind];
    parts.push(part);
    size += part.length;
  }
  return parts.join("");
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random split points of `text`: chunks of 1 to `most` characters. */
function splits(text: string, seed: number, most: number): number[] {
  const rand = mulberry32(seed);
  const points: number[] = [];
  for (let at = 0; at < text.length; ) {
    at = Math.min(text.length, at + 1 + Math.floor(rand() * most));
    points.push(at);
  }
  return points;
}

const once = (text: string) => renderMarkdown(text).innerHTML;

/** The reply's HTML with its groups of finished blocks taken away (their blocks in their place), after
 * checking the groups: children of the reply only, after its first FLAT blocks, GROUP blocks each but
 * the last, holding nothing but blocks and the white space after them. */
function content(el: HTMLElement): string {
  const parts = Array.from(el.querySelectorAll(`.${PART_CLASS}`));
  const direct = Array.from(el.children);
  const firstPart = direct.findIndex((child) => child.classList.contains(PART_CLASS));
  parts.forEach((part, k) => {
    assert.equal(part.parentElement, el, "a group is a child of the reply");
    assert.equal(part.attributes.length, 1, "a group has its class and nothing else");
    if (k < parts.length - 1) assert.equal(part.childElementCount, GROUP, "every group but the last is full");
    else assert.ok(part.childElementCount >= 1 && part.childElementCount <= GROUP);
  });
  if (parts.length) {
    assert.equal(firstPart, FLAT, "groups start after the first FLAT blocks");
    assert.ok(direct.slice(firstPart, firstPart + parts.length).every((child) => child.classList.contains(PART_CLASS)), "the groups follow each other");
  }
  const copy = el.cloneNode(true) as HTMLElement;
  for (const part of Array.from(copy.querySelectorAll(`.${PART_CLASS}`))) part.replaceWith(...Array.from(part.childNodes));
  return copy.innerHTML;
}

/** Stream `text` at `points`; every step compared with rendering that much once (or only the end). */
function stream(text: string, points: number[], everyStep: boolean): void {
  const s = streamedMarkdown();
  const el = s.el;
  for (const at of points) {
    s.set(text.slice(0, at));
    assert.equal(s.el, el, "the element stays the same");
    if (everyStep) assert.equal(content(s.el), once(text.slice(0, at)), `after ${at} of ${text.length} characters of ${JSON.stringify(text.slice(0, 80))}`);
  }
  assert.equal(content(s.el), once(text), `the whole of ${JSON.stringify(text.slice(0, 80))}`);
  assert.equal(content(streamedMarkdown(text).el), once(text), "the whole text drawn at once");
}

test(`the ${hostile.length} hostile payloads streamed at random splits draw what rendering once draws`, () => {
  for (const [n, payload] of hostile.entries()) {
    for (const seed of [1, 2]) stream(payload.text, splits(payload.text, seed * 1000 + n, 12), true);
    // the payload inside a longer reply, between finished blocks
    const text = `Intro paragraph.\n\n${payload.text}\n\nAfter it.\n\n- a list\n\nEnd.\n`;
    stream(text, splits(text, n, 9), true);
  }
});

test("markdown that a later line changes, streamed at random splits, draws what rendering once draws", () => {
  for (const [name, text] of Object.entries(EDGE_CASES)) {
    for (let seed = 0; seed < 6; seed++) stream(text, splits(text, seed, 1 + 2 * seed), true);
    stream(text, Array.from({ length: text.length }, (_, i) => i + 1), true); // one character at a time
    assert.ok(name);
  }
});

test("long replies streamed in small deltas end as rendering once, every step checked on a few", () => {
  for (let seed = 1; seed <= 3; seed++) {
    const text = longReply(seed <= 2 ? 2000 : 8000, seed);
    stream(text, splits(text, seed, 60), seed <= 2);
  }
});

test("blocks that are complete are drawn once: their nodes stay while the reply goes on", () => {
  const s = streamedMarkdown();
  s.set("First paragraph.\n\nSecond ");
  s.set("First paragraph.\n\nSecond paragraph.\n\nThi");
  const first = s.el.firstChild;
  assert.equal((first as HTMLElement).outerHTML, "<p>First paragraph.</p>");
  let text = "First paragraph.\n\nSecond paragraph.\n\nThi";
  for (let i = 0; i < 50; i++) {
    text += i % 10 === 9 ? "\n\nNext " : "word ";
    s.set(text);
    assert.equal(s.el.firstChild, first, "the first paragraph is never drawn again");
  }
  assert.equal(s.el.innerHTML, once(text));
});

test("a delta that ends on a space in a list's last item draws nothing finished again", () => {
  // marked tidies the raw text of a list whose last item ends in a space ("- an item " lexes as
  // "- an item\n"), so the open end could not be placed word for word: the whole reply was drawn
  // again, then every block sealed again (pairs of 150 to 250 ms frames in a 50k reply).
  let text = "";
  for (let i = 0; i < 30; i++) text += i % 2 ? `- item ${i}\n- an item with **bold**\n\n` : `Paragraph ${i} of the plan.\n\n`;
  const s = streamedMarkdown();
  s.set(text + "Paragraph 30.\n\n- item 31\n- an");
  const first = s.el.firstChild;
  for (const end of [" ", " item ", " item with ", " item with **bold**\n"]) {
    s.set(text + "Paragraph 30.\n\n- item 31\n- an" + end);
    assert.equal(s.el.firstChild, first, `drawn again after ${JSON.stringify(end)}`);
  }
  assert.equal(content(s.el), once(text + "Paragraph 30.\n\n- item 31\n- an item with **bold**\n"));
});

test("a long reply's finished blocks are grouped: the reply has tens of children, not hundreds", () => {
  const text = longReply(20_000, 7);
  const s = streamedMarkdown();
  for (const at of splits(text, 7, 400)) s.set(text.slice(0, at));
  const blocks = renderMarkdown(text).childElementCount;
  assert.ok(blocks > 200, `a long reply (${blocks} blocks)`);
  assert.ok(s.el.childElementCount <= FLAT + Math.ceil(blocks / GROUP) + 1, `${s.el.childElementCount} children for ${blocks} blocks`);
  assert.equal(content(s.el), once(text));
  // a short reply is exactly what rendering once gives: no group at all
  const short = "One.\n\nTwo.\n\n- three\n\nFour.\n";
  const t = streamedMarkdown();
  for (const at of splits(short, 3, 4)) t.set(short.slice(0, at));
  assert.equal(t.el.innerHTML, once(short));
});

test("a person's selection and focus inside finished blocks survive the blocks being grouped", () => {
  const s = streamedMarkdown();
  document.body.append(s.el);
  let text = "";
  for (let i = 0; i < FLAT + 2; i++) text += `Block ${i} [link ${i}](https://example.com/${i}).\n\n`;
  s.set(text + "Open\n"); // the next block's first line is whole: every block before it is finished
  const link = s.el.querySelector("a")!;
  const last = s.el.querySelectorAll("p")[FLAT + 1];
  link.focus();
  const range = document.createRange();
  range.selectNodeContents(last);
  document.getSelection()!.removeAllRanges();
  document.getSelection()!.addRange(range);
  assert.equal(document.getSelection()!.getRangeAt(0).toString(), last.textContent, "selected");
  for (let i = 0; i < 3 * GROUP; i++) {
    text += `More ${i}.\n\n`;
    s.set(text + "Open\n");
  }
  assert.equal(document.activeElement, link, "the focused link stayed in place");
  assert.equal(document.getSelection()!.getRangeAt(0).toString(), last.textContent, "the selection is whole");
  assert.ok(s.el.querySelector(`.${PART_CLASS}`)?.contains(last), "the selected block was grouped when drawn");
  s.el.remove();
});

test("a reply that is not the continuation of the last (rewritten) is drawn afresh", () => {
  const s = streamedMarkdown("One.\n\nTwo.\n\nThree");
  s.set("Other.\n\nText");
  assert.equal(s.el.innerHTML, once("Other.\n\nText"));
});
