// A chat view's MCP apps: one frame per tool call, made the first time its card is drawn and kept
// across the card's redraws, with the listeners they share (the window's messages, the kernel's
// replies, Escape, the theme) and their teardown when the view goes.
//
// A card is drawn anew on every change of its item (running -> done, a result coming), and an
// iframe that leaves the page, even for an instant, loses its document: moved into the new card it
// would load again. So the new card gets a slot where the frame goes, and `redraw` puts the new
// card's content into the old card around the frame, which never moves.
import type { AppRef } from "../generated/protocol";
import type { Item, KernelMsg } from "../wire/protocol";
import type { ResultsContext } from "../results/context";
import { h } from "../dom/dom";
import { type AppFrame, type KernelLink, appFrame } from "./frame";
import { watchTheme } from "./page";
import "./apps.css";

export interface AppFrames {
  /** The app element for a tool card of `item` (which has `app`): its frame, or the slot `redraw` keeps it in. */
  frameFor(item: Item): HTMLElement;
  /** Put card `fresh` on the page in place of `old`; returns the element now there (`old`, when it held a frame). */
  redraw(old: HTMLElement, fresh: HTMLElement): HTMLElement;
  /** Leave full screen (a question for the person opened: no app may cover it). */
  exitFullscreen(): void;
  /** Tear down every app (the conversation was cleared). */
  clear(): void;
  /** Tear down every app and stop listening (the view went). */
  dispose(): void;
}

/** What a copy with no kernel shows for an app: one line; the card's result is the rest. */
export function appInCopy(app: AppRef): HTMLElement {
  return h("div", { class: "nt-app-static", role: "note" }, `Interactive app of ${app.server} (${app.tool}): shown in a live notebook.`);
}

export function appFrames(ctx: Pick<ResultsContext, "send" | "onMessage">): AppFrames {
  const byId = new Map<string, AppFrame>();
  const live = new Set<AppFrame>(); // every frame not yet removed, closing ones included
  const waiting = new Map<string, (msg: KernelMsg) => void>();
  let requests = 0;
  const view = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

  const kernel: KernelLink = {
    // Unique across views of one model too: a reply goes to every view, and each takes only its own.
    newId: (prefix) => `${prefix}-${view}-${++requests}`,
    ask(msg, ms, onReply, onTimeout) {
      let timer = 0;
      const stop = () => {
        window.clearTimeout(timer);
        waiting.delete(msg.request_id);
      };
      timer = window.setTimeout(() => {
        stop();
        onTimeout();
      }, ms);
      waiting.set(msg.request_id, (reply) => {
        stop();
        onReply(reply);
      });
      ctx.send(msg);
      return stop;
    },
  };
  const unlisten = ctx.onMessage((msg) => {
    if (msg.type === "app_resource" || msg.type === "app_reply") waiting.get(msg.request_id)?.(msg);
  });
  const onMessage = (event: MessageEvent) => {
    for (const frame of live) if (frame.receive(event)) return;
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== "Escape") return;
    let left = false;
    for (const frame of live) left = frame.exitFullscreen() || left;
    if (left) {
      event.preventDefault();
      event.stopPropagation(); // JupyterLab's Escape (command mode) is for when no app covers the page
    }
  };
  window.addEventListener("message", onMessage);
  window.addEventListener("keydown", onKey, true);
  const unwatch = watchTheme(() => live.forEach((frame) => frame.themeChanged()));

  const closeAll = (): Promise<void> => {
    const closing = Array.from(byId.values(), (frame) => frame.close().then(() => void live.delete(frame)));
    byId.clear();
    return Promise.all(closing).then(() => undefined);
  };

  return {
    exitFullscreen() {
      for (const frame of live) frame.exitFullscreen();
    },
    frameFor(item) {
      let frame = byId.get(item.id);
      if (!frame) {
        frame = appFrame(item, item.app!, kernel);
        byId.set(item.id, frame);
        live.add(frame);
      } else frame.update(item);
      // On the page already, in the card being redrawn: it stays there (see `redraw`).
      return frame.el.isConnected ? h("div", { class: "nt-app-slot", "data-tool-use-id": item.id, hidden: true }) : frame.el;
    },
    redraw(old, fresh) {
      const slot = Array.from(fresh.children).find((child) => child.classList.contains("nt-app-slot"));
      const frame = slot ? byId.get(slot.getAttribute("data-tool-use-id") ?? "") : undefined;
      if (slot && frame && frame.el.parentElement === old) {
        redrawAround(old, fresh, slot, frame.el);
        return old;
      }
      old.replaceWith(fresh);
      if (slot && frame) slot.replaceWith(frame.el); // it left the page with its old card: it loads again
      else slot?.remove();
      return fresh;
    },
    clear() {
      void closeAll();
    },
    dispose() {
      unlisten();
      unwatch();
      window.removeEventListener("keydown", onKey, true);
      // Teardown answers come as messages: stop hearing them once every app has answered or waited out.
      void closeAll().then(() => window.removeEventListener("message", onMessage));
    },
  };
}

/** `old` made to look like `fresh` (attributes and children), its child `keep` standing where `slot` is. */
function redrawAround(old: HTMLElement, fresh: HTMLElement, slot: Element, keep: HTMLElement): void {
  for (const name of old.getAttributeNames()) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  for (const name of fresh.getAttributeNames()) old.setAttribute(name, fresh.getAttribute(name) ?? "");
  for (const child of Array.from(old.childNodes)) if (child !== keep) child.remove();
  const children = Array.from(fresh.childNodes);
  const at = children.indexOf(slot);
  keep.before(...children.slice(0, at));
  keep.after(...children.slice(at + 1));
}
