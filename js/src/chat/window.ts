// Draw only what is seen (issue 40): a long transcript keeps the items far from the log's visible part
// as placeholders, so that a restored session of 1,000 messages does not put every message in the page
// at full cost (it took 1.7 s to draw and 10,000 nodes, all of it at once).
//
// Every item stays one child of the log, in the transcript's order: the snapshot's ordering, the
// follow's "last item" (dom/follow.ts) and the order keys and screen readers walk are those of the
// transcript. An item not drawn is one element of its height (estimated from its text until it has
// been drawn once, measured after) holding its plain text, so that the browser's find-in-page and
// JupyterLab's search still find it; `content-visibility: auto` spares its layout while off screen.
// An IntersectionObserver with the log as its root draws placeholders that come within NEAR pixels of
// what the log shows, and a second one returns drawn items that go beyond FAR pixels to placeholders
// of their measured height (the log decides which may go: nothing the person is using). Layout is
// never read here but from the observers' entries, except where the browser has no scroll anchoring.
//
// An item drawn above what the person reads whose height differs from its placeholder's would move the
// text they read: Chromium and Firefox keep it in place themselves (CSS scroll anchoring, on by
// default); where there is none (Safari) the log's scroll position is corrected by the difference.
// Where there is no IntersectionObserver at all, everything is drawn, as before.
import { h } from "../dom/dom";
import type { Item } from "../wire/protocol";

/** Placeholders within this many pixels of the log's visible part are drawn. */
export const NEAR = 800;
/** Drawn items further than this from the log's visible part may go back to placeholders. */
export const FAR = 2400;
/** Pixels at the log's end drawn at once when a snapshot arrives: what the person sees first, and more. */
export const TAIL = 1600;
/** Placeholders drawn at most on one Tab, looking for the next item with something to focus. */
export const TAB_REACH = 50;

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, iframe, [contenteditable="true"], [tabindex]:not([tabindex="-1"])';

/** What the window needs of an IntersectionObserver entry. */
export interface SightEntry {
  target: Element;
  isIntersecting: boolean;
  boundingClientRect: { top: number; bottom: number; height: number };
  rootBounds: { top: number; bottom: number } | null;
}

export interface Sight {
  observe(el: Element): void;
  unobserve(el: Element): void;
  disconnect(): void;
}

/** Watch children of `root` coming within `margin` pixels of its visible part (null: no observer here). */
export type Watch = (root: HTMLElement, margin: number, seen: (entries: SightEntry[]) => void) => Sight | null;

// A page that sets `notebookToolsDrawAll` (before the widget loads) gets every item drawn, as without an
// observer: for reading or printing the whole transcript at once (the hostile-payload scan does).
export const intersections: Watch = (root, margin, seen) =>
  typeof IntersectionObserver === "function" && !(globalThis as { notebookToolsDrawAll?: boolean }).notebookToolsDrawAll
    ? new IntersectionObserver(seen, { root, rootMargin: `${margin}px 0px` })
    : null;

/** The log's side of the window: draw an item in place of its placeholder, or put it back. */
export interface WindowHooks {
  /** Draw item `id` in place of its placeholder; the element drawn. */
  draw(id: string): HTMLElement | undefined;
  /** Replace drawn item `id`, `height` pixels high, by a placeholder, if it may go; whether it went. */
  rest(id: string, height: number): boolean;
}

export interface ItemWindow {
  /** Whether items are drawn only near sight here (false: everything is drawn). */
  readonly windowed: boolean;
  /** A placeholder for item `id`, `height` pixels high (watched: drawn when it comes near). */
  placeholder(id: string, item: Item, height: number): HTMLElement;
  /** Whether `el` is a placeholder. */
  isPlaceholder(el: Element): boolean;
  /** The id of a log child given to `placeholder` or `watch`. */
  idOf(el: Element): string | undefined;
  /** Watch drawn item `id`: far from sight it may go back to a placeholder. */
  watch(id: string, el: HTMLElement): void;
  /** Stop watching `el` (it left the log). */
  forget(el: Element): void;
  /** Stop watching everything (the log was emptied). */
  clear(): void;
  dispose(): void;
}

const anchoring = () => typeof CSS !== "undefined" && typeof CSS.supports === "function" && CSS.supports("overflow-anchor", "auto");

export function itemWindow(log: HTMLElement, hooks: WindowHooks, watch: Watch = intersections): ItemWindow {
  const ids = new WeakMap<Element, string>();
  const placeholders = new WeakSet<Element>();
  const watched = new Set<Element>();
  const anchored = anchoring();

  const near = watch(log, NEAR, (entries) => {
    let shift = 0; // how much drawn items above the visible part grew, where the browser does not anchor
    for (const entry of entries) {
      const id = ids.get(entry.target);
      if (!entry.isIntersecting || !placeholders.has(entry.target) || id === undefined || !entry.target.isConnected) continue;
      const above = !anchored && entry.rootBounds !== null && entry.boundingClientRect.bottom <= entry.rootBounds.top;
      const drawn = hooks.draw(id);
      if (above && drawn) shift += drawn.getBoundingClientRect().height - entry.boundingClientRect.height;
    }
    if (shift) log.scrollTop += shift;
  });
  const far = near && watch(log, FAR, (entries) => {
    for (const entry of entries) {
      const id = ids.get(entry.target);
      // A zero height: the log is not laid out (a collapsed output), which says nothing of sight.
      if (entry.isIntersecting || placeholders.has(entry.target) || id === undefined || !entry.target.isConnected) continue;
      if (entry.boundingClientRect.height > 0) hooks.rest(id, entry.boundingClientRect.height);
    }
  });

  // Tab and Shift+Tab reach what items not drawn yet hold (a link, a tool card's fold, a prompt's
  // field): when the focus would leave its item past the item's last (first) focusable, the
  // placeholders that come next are drawn before the browser moves it, until one has something to
  // focus, TAB_REACH at most. Items without anything to focus are passed over as the browser would.
  const reach = (event: KeyboardEvent) => {
    if (event.key !== "Tab" || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    const target = event.target instanceof Element ? event.target : null;
    let item = target;
    while (item && item.parentElement !== log) item = item.parentElement;
    if (!target || !item) return;
    const back = event.shiftKey;
    const further = back ? Node.DOCUMENT_POSITION_PRECEDING : Node.DOCUMENT_POSITION_FOLLOWING;
    const within = Array.from(item.querySelectorAll(FOCUSABLE));
    if (within.some((el) => (target.compareDocumentPosition(el) & (further | Node.DOCUMENT_POSITION_CONTAINS)) === further)) return;
    let drawn = 0;
    for (let next = back ? item.previousElementSibling : item.nextElementSibling; next && drawn < TAB_REACH; ) {
      if (placeholders.has(next)) {
        const id = ids.get(next);
        const shown = id === undefined ? undefined : hooks.draw(id);
        drawn++;
        if (!shown) return;
        next = shown;
      }
      if (next.matches(FOCUSABLE) || next.querySelector(FOCUSABLE)) return;
      next = back ? next.previousElementSibling : next.nextElementSibling;
    }
  };
  if (near) log.addEventListener("keydown", reach);

  const observe = (el: Element) => {
    watched.add(el);
    (placeholders.has(el) ? near : far)?.observe(el);
  };
  const forget = (el: Element) => {
    if (!watched.delete(el)) return;
    near?.unobserve(el);
    far?.unobserve(el);
  };

  return {
    windowed: near !== null,
    placeholder(id, item, height) {
      const el = h("div", { class: "nt-lazy" }, plainText(item));
      el.style.height = `${Math.max(1, Math.round(height))}px`;
      el.style.setProperty("contain-intrinsic-size", `auto ${Math.max(1, Math.round(height))}px`);
      ids.set(el, id);
      placeholders.add(el);
      observe(el);
      return el;
    },
    isPlaceholder: (el) => placeholders.has(el),
    idOf: (el) => ids.get(el),
    watch(id, el) {
      ids.set(el, id);
      observe(el);
    },
    forget,
    clear() {
      for (const el of Array.from(watched)) forget(el);
    },
    dispose() {
      log.removeEventListener("keydown", reach);
      watched.clear();
      near?.disconnect();
      far?.disconnect();
    },
  };
}

/** What a placeholder holds of its item: the text a search should find there. */
export function plainText(item: Item): string {
  if (item.discarded || item.kind === "thinking") return ""; // thinking shows folded: not found while folded either
  if (item.kind === "tool") return [item.name ?? "tool", item.result ?? ""].join("\n");
  return item.text ?? "";
}

/** Wrapped lines of `text` at about `columns` characters a line. */
function lines(text: string, columns: number): number {
  return text.split("\n").reduce((n, line) => n + Math.max(1, Math.ceil(line.length / columns)), 0);
}

/** The height an item is likely to be drawn at, in pixels, before it ever was (a guess from its text). */
export function estimateHeight(item: Item): number {
  if (item.discarded) return 1;
  const text = item.text ?? "";
  switch (item.kind) {
    case "user":
      return 16 + 20 * lines(text, 70);
    case "assistant": {
      // markdown: paragraphs and list items on lines of their own, blank lines between blocks
      const blocks = text.split(/\n\s*\n/).length;
      return 20 * lines(text, 95) + 8 * blocks;
    }
    case "tool":
      return 34;
    case "thinking":
    case "compaction":
      return 28;
    default:
      return 20 * lines(text, 95) + 4;
  }
}

/** How many of the last items (heights given in order) it takes to fill `budget` pixels (at least one). */
export function tailCount(heights: number[], budget: number): number {
  let sum = 0;
  for (let k = heights.length - 1; k >= 0; k--) {
    sum += heights[k];
    if (sum >= budget) return heights.length - k;
  }
  return heights.length;
}
