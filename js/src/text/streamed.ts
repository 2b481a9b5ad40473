// A reply's markdown as it streams, drawn at the cost of what each delta adds: the blocks that are
// complete are parsed, sanitized and put in the DOM once; only the open tail is drawn again. What it
// shows is, at every step, what renderMarkdown shows for the text so far (the same parser, sanitizer
// and allow-list; tested against it at random split points in streamed.test.ts).
//
// A block is complete for good when a blank line follows it and the first line of the next block is
// whole: no markdown block reaches past a blank line except lists and indented code, and whether those
// go on is decided by that next line. Some things change what comes before them, and then the split
// is not made (the open part, or everything, is drawn again):
//   - raw HTML can leave elements open (an unclosed <b> spills into later blocks), so blocks are only
//     completed up to the first one holding raw HTML (a <br> excepted); the rest is drawn as one;
//   - a reference definition (`[x]: https://...`) changes links earlier in the text: when the set of
//     definitions changes, everything is drawn again;
//   - a <frameset> decides whether the HTML parser keeps the body: texts with one are drawn whole.
//
// The browser lays a reply out again on every delta, and that walks every child of the reply's element,
// drawn for good or not (about 6 ms a frame at 2,500 blocks in Chromium, 0.3 ms when they are grouped in
// fifties). So the first FLAT blocks drawn for good are children of the reply, as rendering once gives
// them, and later ones go into groups of GROUP (`div.nt-md-part`, no box of its own: no margin, border
// or padding, so the blocks' margins collapse across it as between siblings). A group is created empty
// and filled, never built by moving nodes (that would drop a selection or a focus inside them). A short
// reply is exactly what rendering once gives; a long one is that with its later blocks grouped.
import type { Token, TokensList } from "marked";
import { type LinkDefs, blocksFragment, lexBlocks, markdownSource, renderMarkdown } from "./sanitize";

export interface MarkdownStream {
  /** The `div.nt-md`, the same element for the whole stream. */
  readonly el: HTMLElement;
  /** Draw `text`, the whole reply so far (usually what was drawn last, and more). */
  set(text: string): void;
}

const BLANK_LINE_BEFORE = /\n[ \t]*\n$/;
const HARMLESS_HTML = /^<br\s*\/?>$/i; // a void element: it leaves nothing open
const FRAMESET = /<frameset/i;

/** Blocks drawn for good that are children of the reply before they go into groups. */
export const FLAT = 16;
/** Blocks in one group of blocks drawn for good. */
export const GROUP = 32;
/** The class of a group of blocks drawn for good. */
export const PART_CLASS = "nt-md-part";

export function streamedMarkdown(text = ""): MarkdownStream {
  const el = document.createElement("div");
  el.className = "nt-md";
  let done = ""; // the source of the blocks drawn for good
  let known: LinkDefs = Object.create(null); // the definitions inside `done` (what lexing the rest needs)
  let drawnWith = "[]"; // every definition in the text when those blocks were drawn
  let tail: Node[] = []; // the nodes of the open part, after the blocks drawn for good
  let tailSource: string | null = null;
  let flat = 0; // blocks drawn for good as children of the reply
  let part: HTMLElement | null = null; // the group being filled

  const reset = () => {
    done = "";
    known = Object.create(null);
    drawnWith = "[]";
    tail = [];
    tailSource = null;
    flat = 0;
    part = null;
    el.replaceChildren();
  };

  /** Put blocks drawn for good after those before them: the first FLAT in the reply, then in groups. */
  const seal = (fragment: DocumentFragment) => {
    let into: HTMLElement = part ?? el;
    for (const node of Array.from(fragment.childNodes)) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (flat < FLAT) {
          flat++;
          into = el;
        } else if (!part || part.childElementCount >= GROUP) {
          part = document.createElement("div");
          part.className = PART_CLASS;
          el.append(part);
          into = part;
        } else into = part;
      }
      into.append(node); // the white space between blocks goes with the block before it
    }
  };

  /** Draw everything again, as renderMarkdown does (no split was safe, or something failed). */
  const whole = (raw: string) => {
    reset();
    const once = renderMarkdown(raw);
    tail = Array.from(once.childNodes);
    el.append(...tail);
  };

  const set = (raw: string) => {
    const source = markdownSource(raw);
    if (FRAMESET.test(source)) return whole(raw);
    if (!source.startsWith(done)) reset(); // not the same reply going on: start again
    try {
      if (!draw(source)) whole(raw);
    } catch {
      whole(raw);
    }
  };

  const draw = (source: string): boolean => {
    let rest = source.slice(done.length);
    let tokens = lexBlocks(rest, known);
    if (linksKey(tokens.links) !== drawnWith && done) {
      // A definition came or changed: links in blocks drawn for good may read differently now.
      reset();
      rest = source;
      tokens = lexBlocks(rest, known);
    }
    const starts = tokenStarts(rest, tokens);
    if (!starts) return false;
    const split = completeUpTo(rest, tokens, starts);
    if (split > 0) {
      const fragment = blocksFragment(tokens.slice(0, split), done === "");
      if (!fragment) return false;
      for (const node of tail) node.parentNode?.removeChild(node);
      seal(fragment);
      tail = [];
      tailSource = null;
      const at = starts[split];
      const finished = rest.slice(0, at);
      done += finished;
      drawnWith = linksKey(tokens.links);
      // The definitions inside the finished part only (rarely any): lexed on their own.
      known = Object.keys(tokens.links).length ? lexBlocks(done, Object.create(null)).links : known;
      rest = rest.slice(at);
      tokens = tokens.slice(split) as TokensList;
    }
    if (rest === tailSource) return true;
    const fragment = blocksFragment(tokens, done === "");
    if (!fragment) return false;
    const fresh = Array.from(fragment.childNodes);
    for (const node of tail) node.parentNode?.removeChild(node);
    el.append(fragment);
    tail = fresh;
    tailSource = rest;
    if (done === "") drawnWith = linksKey(tokens.links);
    return true;
  };

  if (text) set(text);
  return { el, set };
}

/** Where each top-level token starts in `source`, or null when they cannot be placed (a definition
 * leaves a gap between tokens, which is skipped). The last token is the open end of the text, and
 * marked tidies the raw text of some (a list whose last item ends in a space loses the space and
 * gains a newline): not found word for word, it starts where the one before it ended. (Not placing it
 * drew the whole reply again, then sealed every block again in the next frame: pairs of 150 to
 * 250 ms frames in a 50,000-character reply.) */
function tokenStarts(source: string, tokens: Token[]): number[] | null {
  const starts: number[] = [];
  let at = 0;
  for (const [k, token] of tokens.entries()) {
    let found = source.startsWith(token.raw, at) ? at : source.indexOf(token.raw, at);
    if (found < 0 && k === tokens.length - 1) found = at;
    if (found < 0) return null;
    starts.push(found);
    at = found + token.raw.length;
  }
  starts.push(source.length);
  return starts;
}

/** How many of the leading tokens are complete for good: 0 when none is. */
function completeUpTo(source: string, tokens: Token[], starts: number[]): number {
  let best = 0;
  for (let k = 1; k < tokens.length; k++) {
    if (leavesOpen(tokens[k - 1])) break;
    const token = tokens[k];
    if (token.type === "space" || token.type === "text") continue;
    if (!BLANK_LINE_BEFORE.test(source.slice(Math.max(0, starts[k] - 200), starts[k]))) continue;
    if (source.indexOf("\n", starts[k]) < 0) break; // the next block's first line is not whole yet
    best = k;
  }
  return best;
}

/** Whether a token holds raw HTML that could leave something open for the blocks after it. */
function leavesOpen(token: Token): boolean {
  let open = false;
  const visit = (t: Token) => {
    if (open) return;
    if (t.type === "html" && !HARMLESS_HTML.test(t.raw.trim())) open = true;
    const any = t as Token & { tokens?: Token[]; items?: Token[]; header?: { tokens: Token[] }[]; rows?: { tokens: Token[] }[][] };
    any.tokens?.forEach(visit);
    any.items?.forEach(visit);
    any.header?.forEach((cell) => cell.tokens.forEach(visit));
    any.rows?.forEach((row) => row.forEach((cell) => cell.tokens.forEach(visit)));
  };
  visit(token);
  return open;
}

function linksKey(links: LinkDefs): string {
  return JSON.stringify(Object.keys(links).sort().map((key) => [key, links[key].href, links[key].title]));
}
