// The chat's transcript in its log: items added or updated in place, streamed text drawn at most once
// per frame, items redrawn when their prompt card changes, and the cards of prompts with no item
// (loose prompts) below the log. Each item is drawn by transcript.ts; its card comes from cards.ts.
// Items of a snapshot (a restored session) are drawn only near sight (window.ts): the others are
// placeholders until the person scrolls near them, and drawn items far away go back to placeholders
// unless they hold something of the person's or of the kernel's (focus, a prompt, an app, a view).
import type { RenderProps } from "@anywidget/types";
import type { Item, Model, PromptState } from "../wire/protocol";
import { h } from "../dom/dom";
import { requestFrame } from "../dom/frame";
import { renderItem, updateText } from "./transcript";
import type { ResultsContext } from "../results/index";
import type { RendererModules } from "../renderers/api";
import { appFrames } from "../apps/registry";
import { promptCards } from "./cards";
import type { Connection } from "./connection";
import type { ChatDom } from "./skeleton";
import { TAIL, type Watch, estimateHeight, intersections, itemWindow, tailCount } from "./window";

export interface ChatLog {
  /** Add an item, or merge an update into the one with its id and redraw it. */
  upsert(item: Item): void;
  /** Streamed text for item `id` (a new assistant item when there is none). */
  delta(id: string, text: string): void;
  has(id: string): boolean;
  /** A page of the kernel's snapshot: items not shown yet are added, and the page's order is the log's. */
  snapshot(page: Item[]): void;
  /** Redraw for the `prompts` trait: items whose card changed, and the loose prompts. */
  drawPrompts(): void;
  /** Empty the log (the conversation was cleared). */
  clear(): void;
  /** The view went: tear down its MCP apps. */
  dispose(): void;
}

/** `watch`: how items coming near sight are seen (an IntersectionObserver; a test's stand-in). */
export function chatLog(model: RenderProps<Model>["model"], dom: ChatDom, link: Pick<Connection, "send" | "onMessage">, renderers: RendererModules, watch: Watch = intersections): ChatLog {
  const { log, loose } = dom;
  // `el` is the item drawn, or its placeholder (`sight.isPlaceholder`); `folds`: which of its
  // `details` the person had open when it went back to a placeholder (opened again when drawn).
  const items = new Map<string, { item: Item; el: HTMLElement; folds?: number[] }>();
  const cards = promptCards(model, link, renderers, (id) => items.get(id)?.item);
  const apps = appFrames(link); // a tool card's MCP app: one frame per call, kept across redraws
  const results = { send: link.send, onMessage: link.onMessage, apps }; // a table view asks the kernel for its pages

  // Drawn only near sight: a placeholder is drawn when seen (or when it gets a card), not on every change.
  const sight = itemWindow(log, { draw: (id) => draw(id), rest: (id, height) => rest(id, height) }, watch);
  const lazy = (entry: { el: HTMLElement }) => sight.isPlaceholder(entry.el);

  const draw = (id: string) => {
    const entry = items.get(id);
    if (!entry || !lazy(entry)) return undefined;
    const fresh = renderItemSafe(entry.item, cards.cardFor, results);
    const folds = Array.from(fresh.querySelectorAll("details"));
    for (const k of entry.folds ?? []) if (folds[k]) folds[k].open = true;
    entry.folds = undefined;
    sight.forget(entry.el);
    entry.el.replaceWith(fresh);
    entry.el = fresh;
    sight.watch(id, fresh);
    return fresh;
  };

  // Whether a drawn item may go back to a placeholder: not while the person or the kernel uses it.
  const mayRest = (id: string, entry: { item: Item; el: HTMLElement }) => {
    const { item, el } = entry;
    if (!sight.windowed || item.app || item.shown || item.prompt || item.kind === "prompt" || cards.drawn(id)) return false;
    if (dirty.has(id) || partial.has(id) || el === log.lastElementChild || !el.isConnected) return false;
    return !el.contains(document.activeElement);
  };
  const rest = (id: string, height: number): boolean => {
    const entry = items.get(id);
    if (!entry || lazy(entry) || !mayRest(id, entry)) return false;
    const folds = Array.from(entry.el.querySelectorAll("details"));
    const open = folds.flatMap((fold, k) => (fold.open ? [k] : []));
    const placeholder = sight.placeholder(id, entry.item, height);
    sight.forget(entry.el);
    entry.el.replaceWith(placeholder);
    entry.el = placeholder;
    entry.folds = open;
    return true;
  };

  const drawItem = (id: string) => {
    const entry = items.get(id);
    if (!entry) return;
    if (lazy(entry)) {
      // not drawn: it is drawn as it is when seen, unless it now has a card (a prompt reopened)
      if (cards.cardFor(id, entry.item)) draw(id);
      return;
    }
    const fresh = renderItemSafe(entry.item, cards.cardFor, results);
    keepOpenFolds(entry.el, fresh);
    const old = entry.el;
    entry.el = apps.redraw(entry.el, fresh); // in place around a card's app frame, which must not move
    if (entry.el !== old) {
      sight.forget(old);
      sight.watch(id, entry.el);
    }
  };

  // Only its text changed (streamed text, or the finished text again): drawn in place when it can be.
  const drawText = (id: string) => {
    const entry = items.get(id);
    if (entry && !lazy(entry) && !updateText(entry.el, entry.item)) drawItem(id);
  };

  // `later`: an item of a snapshot, which may wait as a placeholder until it is seen.
  const upsert = (item: Item, later = false) => {
    const entry = items.get(item.id);
    if (entry) {
      const before = entry.item;
      entry.item = { ...entry.item, ...item };
      if (onlyText(before, item)) drawText(item.id);
      else drawItem(item.id);
    } else {
      const wait = later && sight.windowed && !item.discarded && !item.app && !item.shown && !item.prompt && item.kind !== "prompt" && !cards.cardFor(item.id, item);
      const el = wait ? sight.placeholder(item.id, item, estimateHeight(item)) : renderItemSafe(item, cards.cardFor, results);
      if (!wait) sight.watch(item.id, el);
      // A copy: every view of the model receives the same message object, and deltas mutate items.
      items.set(item.id, { item: { ...item }, el });
      log.append(el);
    }
  };

  // Streamed text: drawn at most once per frame, only what it adds (text/streamed.ts).
  const dirty = new Set<string>();
  let frame = 0;
  // Items this view knows only from deltas: it rendered while their text streamed and has not had the
  // snapshot yet, so the text before its first delta is missing (the snapshot's is whole, see below).
  const partial = new Set<string>();
  const delta = (id: string, text: string) => {
    const entry = items.get(id);
    if (!entry) {
      partial.add(id);
      return upsert({ id, kind: "assistant", text });
    }
    draw(id); // streamed text is drawn, wherever it is
    entry.item.text = (entry.item.text ?? "") + text;
    dirty.add(id);
    if (!frame) {
      frame = requestFrame(() => {
        frame = 0;
        for (const d of dirty) drawText(d);
        dirty.clear();
      });
    }
  };

  let asked = new Set<string>();
  const drawPrompts = () => {
    const prompts = (model.get("prompts") ?? {}) as Record<string, PromptState>;
    const open = new Set(Object.keys(prompts).filter((id) => prompts[id].status === "pending"));
    // A new question for the person (an app's consent card among them): no app in full screen hides it.
    if ([...open].some((id) => !asked.has(id))) apps.exitFullscreen();
    asked = open;
    const focused = document.activeElement;
    // Cards of open prompts, and of prompts that just closed (their card now comes from the item).
    for (const id of new Set([...Object.keys(prompts), ...cards.ids()])) {
      if (!items.has(id)) continue;
      const before = cards.drawn(id);
      const card = cards.cardFor(id);
      if (card !== (before ?? null)) drawItem(id);
    }
    for (const id of cards.ids()) if (!(id in prompts) && !items.get(id)?.item.prompt) cards.forget(id);
    loose.replaceChildren(...Object.keys(prompts).filter((id) => !items.has(id)).map((id) => cards.cardFor(id)!).filter(Boolean));
    // Moving the loose cards drops the focus of a control in one: it goes back, without scrolling.
    // Focus outside this view is never touched (a cell's editor keeps it by itself).
    if (focused instanceof HTMLElement && focused !== document.activeElement && focused.isConnected && dom.root.contains(focused)) {
      focused.focus({ preventScroll: true });
    }
  };

  // A view that renders while a turn runs gets that turn's messages before its snapshot: the
  // snapshot's items it lacks are added, then the page's items are put in the transcript's order
  // (moved only when out of order, so a view that was in step keeps every element where it is).
  // The kernel sends buffered text before a snapshot, so a snapshot holds every delta that came before
  // it: an item known only from deltas takes the snapshot's whole text (and kind: it may be thinking).
  const snapshot = (page: Item[]) => {
    for (const item of page) {
      if (!items.has(item.id)) upsert(item, true);
      else if (partial.delete(item.id)) upsert(item);
    }
    const wanted = page.map((item) => items.get(item.id)!.el);
    const shown = new Set(wanted);
    const now = Array.from(log.children).filter((el) => shown.has(el as HTMLElement));
    if (now.length !== wanted.length || !now.every((el, k) => el === wanted[k])) for (const el of wanted) log.append(el);
    drawTail();
  };

  // What the person sees first, the log's end, is drawn at once: without waiting for the observer,
  // which reports only after the placeholders were laid out (a frame showing them empty).
  const drawTail = () => {
    const children = Array.from(log.children) as HTMLElement[];
    const heights = children.map((el) => {
      const id = sight.idOf(el);
      const entry = id === undefined ? undefined : items.get(id);
      return entry ? estimateHeight(entry.item) : 0;
    });
    for (const el of children.slice(children.length - tailCount(heights, TAIL))) {
      const id = sight.idOf(el);
      if (id !== undefined && sight.isPlaceholder(el)) draw(id);
    }
  };

  return {
    upsert: (item) => upsert(item), // an items message's forEach passes more arguments
    delta,
    snapshot,
    has: (id) => items.has(id),
    drawPrompts,
    clear: () => {
      apps.clear();
      sight.clear();
      items.clear();
      cards.clear();
      log.replaceChildren();
    },
    dispose: () => {
      sight.dispose();
      apps.dispose();
    },
  };
}

/** Whether `update` changes nothing of `item` but its text. */
function onlyText(item: Item, update: Partial<Item>): boolean {
  const fields = item as unknown as Record<string, unknown>;
  return Object.entries(update).every(([key, value]) => key === "text" || JSON.stringify(value) === JSON.stringify(fields[key]));
}

// A fold the person opened stays open when its item is redrawn (thinking streaming in), while its
// `data-fold` key stays the same (a finished thinking section gets a new key: it is shown folded).
function keepOpenFolds(old: HTMLElement, fresh: HTMLElement): void {
  const opened = new Set(Array.from(old.querySelectorAll("details[data-fold][open]")).map((d) => d.getAttribute("data-fold")));
  if (!opened.size) return;
  for (const fold of Array.from(fresh.querySelectorAll("details[data-fold]"))) {
    if (opened.has(fold.getAttribute("data-fold"))) (fold as HTMLDetailsElement).open = true;
  }
}

function renderItemSafe(item: Item, cardFor: (id: string, item: Item) => HTMLElement | null, results: ResultsContext): HTMLElement {
  try {
    return renderItem(item, cardFor, results);
  } catch (err) {
    return h("div", { class: "nt-notice nt-error" }, `Could not show this item: ${(err as Error).message}`);
  }
}
