// The view's link to its kernel: custom messages out (none once the kernel is gone), subscribers to
// the kernel's messages, the view's presence (hello, a ping every few seconds, bye), and the view
// turned read-only, with a banner saying why, when the kernel restarts or goes away (see liveness.ts).
import type { RenderProps } from "@anywidget/types";
import type { KernelMsg, Model, ViewMsg } from "../wire/protocol";
import { setText } from "../text/sanitize";
import { CLOSED, watchKernel } from "./liveness";
import type { ChatDom } from "./skeleton";

const PING_MS = 5000;

export type KernelHandler = (msg: KernelMsg, buffers?: DataView[]) => void;

export interface Connection {
  /** Send a custom message; nothing once the kernel is gone. */
  send(content: ViewMsg, buffers?: ArrayBuffer[]): void;
  /** Subscribe to the kernel's custom messages (and their binary buffers); returns the unsubscribe. */
  onMessage(handler: KernelHandler): () => boolean;
  /** Hand a kernel message to every subscriber. */
  dispatch(msg: KernelMsg, buffers?: DataView[]): void;
  /** Whether the kernel went away: what the view shows stays as it was then. */
  gone(): boolean;
  /** Announce this view (the kernel answers with a snapshot), keep pinging, and watch the kernel. */
  open(): void;
  /** Stop watching and pinging, and say bye. */
  close(): void;
}

/** `onGone` hears once that the kernel went (the view then shows what it had). */
export function connection(model: RenderProps<Model>["model"], dom: ChatDom, onGone: () => void = () => {}): Connection {
  const handlers = new Set<KernelHandler>();
  let gone = false;
  let ping = 0;
  let unwatch = () => {};
  const markGone = (reason: string) => {
    if (gone) return;
    gone = true;
    window.clearInterval(ping);
    setText(dom.goneBar, reason);
    dom.goneBar.hidden = false;
    dom.root.classList.add("nt-gone");
    for (const part of [dom.errorBar, dom.follow.el, dom.loose, dom.menuPanel, dom.composer]) part.inert = true;
    setText(dom.status, "disconnected from the kernel");
    onGone();
  };
  const send = (content: ViewMsg, buffers?: ArrayBuffer[]) => {
    if (gone) return;
    try {
      model.send(content, undefined, buffers);
    } catch {
      markGone(CLOSED); // JupyterLab's "Cannot send": the comm closed under us
    }
  };
  let viewId = "";
  return {
    send,
    onMessage: (handler) => {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    dispatch: (msg, buffers) => {
      for (const handler of Array.from(handlers)) handler(msg, buffers);
    },
    gone: () => gone,
    open: () => {
      // Pinging tells the kernel a person can see the prompts; a closed tab stops pinging and its view expires.
      viewId = `view-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      send({ type: "hello", view_id: viewId });
      ping = window.setInterval(() => send({ type: "ping", view_id: viewId }), PING_MS);
      unwatch = watchKernel((model as unknown as { widget_manager?: unknown }).widget_manager, markGone);
    },
    close: () => {
      unwatch();
      window.clearInterval(ping);
      send({ type: "bye", view_id: viewId });
    },
  };
}
