// One MCP app in its tool card: its HTML asked of the kernel, run in a sandboxed frame, and the
// host's side of its JSON-RPC (bridge.ts) acted out on the page: the frame's height, full screen,
// theme changes, the tool call's input and result, and requests passed on to the kernel.
//
// The app is untrusted code, run two frames deep (proxy.ts): the card's frame holds our sandbox proxy,
// whose policy lets the app's frame inside it navigate nowhere it did not declare, and the proxy
// hands the app its HTML when it says it is ready. Both frames: sandbox "allow-scripts allow-forms"
// (an opaque origin: no cookies, no storage, no reach into JupyterLab; no pop-ups, downloads, modals
// or top navigation), the kernel's Content-Security-Policy first in each document (proxy.ts,
// srcdoc.ts), then in the app's a guard script that closes what policy leaves open in Chromium
// (WebRTC, the clipboard, link clicks, meta refreshes, frames of fresh realms: srcdoc.ts), no referrer. Only messages whose source is the card's frame's window (the proxy, which
// passes on the app's) are heard. An app whose frame loads a second document (it navigated), or a
// proxy that does, is stopped. Putting the frame back on the page after it left (a card moved) loads
// it afresh: it gets a new window, the proxy asks for the HTML again, and the exchange starts over.
import type { AppRef } from "../generated/protocol";
import type { Item, KernelMsg, KernelMsgOf, ViewMsg } from "../wire/protocol";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { type AppHost, HEIGHT_MAX, INTERNAL_ERROR, bridge, isPlainObject, nextMode, notice, parseMessage, rpcError } from "./bridge";
import { type Delivery, type HostState, NOTHING_DELIVERED, due, initializeResult } from "./hostContext";
import { locale, pageTheme, pageVariables } from "./page";
import { RESOURCE_READY, proxyDocument, proxyNotice } from "./proxy";
import { appDocument } from "./srcdoc";

/** How long the card says only "Loading" before it says the kernel has not answered yet. */
export const RESOURCE_WAIT_MS = 30_000;
/** The kernel's answer may wait for a person's consent: be generous. */
export const KERNEL_WAIT_MS = 10 * 60_000;
export const TEARDOWN_WAIT_MS = 500;
/** The inline frame's height until the app reports its own. */
export const FIRST_HEIGHT = 160;

type Ask = Extract<ViewMsg, { type: "app_open" | "app_request" }>;

/** What a frame uses of its registry: the kernel, one reply per request id. */
export interface KernelLink {
  newId(prefix: string): string;
  /** Send `msg`; `onReply` gets its reply, or `onTimeout` runs after `ms`. Returns the cancel. */
  ask(msg: Ask, ms: number, onReply: (msg: KernelMsg) => void, onTimeout: () => void): () => void;
}

export interface AppFrame {
  /** The element the card shows: kept across the card's redraws. */
  el: HTMLElement;
  /** The tool call changed (its result came): the app hears what it has not yet. */
  update(item: Item): void;
  /** Whether `event` came from this app's frame; if so it was handled. */
  receive(event: MessageEvent): boolean;
  themeChanged(): void;
  /** Leave full screen; false when it was not in it. */
  exitFullscreen(): boolean;
  /** Ask the app to tear down (waiting at most TEARDOWN_WAIT_MS), then remove it. */
  close(): Promise<void>;
}

export function appFrame(item: Item, app: AppRef, kernel: KernelLink): AppFrame {
  const label = `App of ${app.server}: ${app.tool}`;
  const exit = h("button", { class: "nt-btn nt-app-exit", type: "button" }, "Exit full screen");
  const bar = h("div", { class: "nt-app-bar", hidden: true }, h("span", { class: "nt-app-title" }, label), exit);
  const status = h("div", { class: "nt-app-status", role: "status" }, `Loading the app of ${app.server}…`);
  const el = h("div", { class: "nt-app", "data-tool-use-id": item.id, role: "group", "aria-label": label, tabindex: "-1" }, bar, status);

  let current = item;
  let frame: HTMLIFrameElement | null = null;
  let loaded: Window | null = null; // the frame's window at its last load
  let talking: Window | null = null; // the window the exchange below is with
  let html = ""; // the app's document, for the proxy to ask for (again, in a new window)
  let served = false; // whether the proxy in `talking` has it
  let tool: Record<string, unknown> = {};
  let delivery: Delivery = NOTHING_DELIVERED;
  let mode = "inline";
  let height = FIRST_HEIGHT;
  let lastLook = "";
  let generation = 0;
  let closing: { id: string; done: () => void } | null = null;
  const cancels = new Set<() => void>();

  const post = (message: object) => {
    try {
      frame?.contentWindow?.postMessage(message, "*"); // its origin is opaque: "*" is the only target
    } catch {
      /* a frame that is going away */
    }
  };
  const dimensions = (): Record<string, number> => mode === "fullscreen"
    ? { width: Math.round(window.innerWidth), height: Math.round(frame?.getBoundingClientRect().height || window.innerHeight) }
    : { width: Math.round(el.getBoundingClientRect().width), maxHeight: HEIGHT_MAX };
  const state = (): HostState => ({
    toolUseId: current.id, tool, theme: pageTheme(), variables: pageVariables(el), displayMode: mode, dimensions: dimensions(), ...locale(),
  });
  const contextChanged = (params: Record<string, unknown>) => {
    if (delivery.initialized) post(notice("ui/notifications/host-context-changed", params));
  };
  const flush = () => {
    const next = due(delivery, current);
    delivery = next.state;
    for (const n of next.out) post(notice(n.method, n.params));
  };
  const show = (text: string, kind: "error" | "stopped") => {
    setText(status, text);
    status.className = `nt-app-status nt-app-${kind}`;
    status.setAttribute("role", "alert");
    status.hidden = false;
  };
  const cancelAll = () => {
    for (const cancel of Array.from(cancels)) cancel();
    cancels.clear();
  };
  const setMode = (next: string) => {
    if (next === mode) return;
    const hadFocus = el.contains(document.activeElement);
    mode = next;
    const full = mode === "fullscreen";
    el.classList.toggle("nt-app-fullscreen", full);
    // The browser's own full screen (the person's click in the app lends the page its activation); where
    // it is refused, the overlay above covers what it can (a notebook's cell may contain fixed boxes).
    if (full && typeof el.requestFullscreen === "function") el.requestFullscreen().catch(() => undefined);
    if (!full && document.fullscreenElement === el) document.exitFullscreen().catch(() => undefined);
    bar.hidden = !full;
    if (frame) frame.style.height = full ? "" : `${height}px`;
    // The way out takes the focus from the app or from nowhere, never from a cell being typed in.
    const active = document.activeElement;
    if (full && (!active || active === document.body || active === frame)) exit.focus({ preventScroll: true });
    if (!full && hadFocus) el.focus({ preventScroll: true });
    contextChanged({ displayMode: mode, containerDimensions: dimensions() });
  };
  const stop = () => {
    setMode("inline");
    frame?.remove();
    frame = null;
    generation++;
    cancelAll();
    show("The app tried to leave its card and was stopped.", "stopped");
  };

  const host: AppHost = {
    initialize: () => initializeResult(state()),
    initialized: () => {
      delivery = { ...delivery, initialized: true };
      flush();
    },
    displayMode: (requested) => {
      setMode(nextMode(mode, requested));
      return mode;
    },
    resize: (px) => {
      height = px;
      if (frame && mode === "inline") frame.style.height = `${px}px`; // a clamped number, set as a property
    },
    waiting: () => cancels.size,
    forward: (method, params, answer) => {
      const gen = generation;
      const token = () => cancel();
      const done = (reply: Parameters<typeof answer>[0]) => {
        cancels.delete(token);
        if (gen === generation) answer(reply); // not to a document that has gone since
      };
      cancels.add(token);
      const cancel = kernel.ask({ type: "app_request", request_id: kernel.newId("app-req"), tool_use_id: current.id, method, params }, KERNEL_WAIT_MS,
        (msg) => {
          const reply = msg as KernelMsgOf<"app_reply">;
          done(reply.error !== undefined ? { error: rpcError(reply.error) } : { result: isPlainObject(reply.result) ? reply.result : {} });
        },
        () => done({ error: { code: INTERNAL_ERROR, message: "the kernel did not answer" } }));
    },
    response: (id) => {
      if (closing && id === closing.id) closing.done();
    },
  };
  let hear = bridge(host, post);
  const restart = () => { // a new document in the frame: the exchange starts over
    generation++;
    cancelAll();
    delivery = NOTHING_DELIVERED;
    hear = bridge(host, post);
  };

  const open = (msg: KernelMsgOf<"app_resource">) => {
    if (msg.error) return show(`The app of ${app.server} cannot be shown: ${msg.error}`, "error");
    if (typeof msg.csp !== "string" || !msg.csp.trim()) return show(`The app of ${app.server} cannot be shown: the kernel sent no Content-Security-Policy.`, "error");
    const allow = typeof msg.allow === "string" ? msg.allow : "";
    try {
      html = appDocument(String(msg.html ?? ""), msg.csp, new DOMParser());
    } catch (err) {
      return show(`The app of ${app.server} cannot be shown: its HTML could not be read (${(err as Error).message}).`, "error");
    }
    tool = isPlainObject(msg.tool) ? msg.tool : {};
    const iframe = document.createElement("iframe"); // not h(): it refuses srcdoc, which only this sets
    iframe.className = "nt-app-frame";
    iframe.setAttribute("sandbox", "allow-scripts allow-forms");
    iframe.setAttribute("allow", allow); // delegated on to the app's frame
    iframe.setAttribute("referrerpolicy", "no-referrer");
    iframe.setAttribute("loading", "eager");
    iframe.setAttribute("title", label);
    iframe.setAttribute("srcdoc", proxyDocument(msg.csp, allow, label));
    iframe.style.height = `${height}px`;
    iframe.addEventListener("load", () => {
      if (frame !== iframe) return;
      const win = iframe.contentWindow;
      if (loaded !== null && win === loaded) return stop(); // the same window with another document
      loaded = win; // the first load, or the frame put back on the page (a new window)
    });
    el.classList.toggle("nt-app-bordered", msg.prefers_border !== false);
    status.hidden = true;
    frame = iframe;
    el.append(iframe);
  };

  // A kernel busy with a cell (the very one that made this card, or a long one after it) answers when
  // it is done: the card says so after RESOURCE_WAIT_MS and takes the answer whenever it comes, up to
  // KERNEL_WAIT_MS. Only then, or at an error, does it give up.
  const slow = window.setTimeout(() => {
    setText(status, `Waiting for the kernel to send the app of ${app.server}: it has not answered in ${RESOURCE_WAIT_MS / 1000} s (it may be busy running a cell).`);
  }, RESOURCE_WAIT_MS);
  const openToken = () => {
    window.clearTimeout(slow);
    cancelOpen();
  };
  cancels.add(openToken);
  const cancelOpen = kernel.ask({ type: "app_open", request_id: kernel.newId("app-open"), tool_use_id: item.id }, KERNEL_WAIT_MS,
    (msg) => {
      window.clearTimeout(slow);
      cancels.delete(openToken);
      if (msg.type === "app_resource") open(msg);
    },
    () => {
      window.clearTimeout(slow);
      cancels.delete(openToken);
      show(`The app of ${app.server} cannot be shown: the kernel did not answer within ${KERNEL_WAIT_MS / 60_000} minutes.`, "error");
    });
  exit.addEventListener("click", () => setMode("inline"));
  // Escape in the browser's full screen ends it without a key event for the page: follow it.
  el.addEventListener("fullscreenchange", () => {
    if (document.fullscreenElement !== el && mode === "fullscreen") setMode("inline");
  });

  const destroy = () => {
    generation++;
    cancelAll();
    frame?.remove();
    frame = null;
    el.remove();
  };

  return {
    el,
    update(next) {
      current = next;
      flush();
    },
    receive(event) {
      const win = frame?.contentWindow;
      if (!win || event.source !== win) return false;
      if (closing) {
        const rpc = parseMessage(event.data);
        if (rpc.kind === "response") host.response(rpc.id);
        return true;
      }
      if (talking !== win) {
        if (talking !== null) restart();
        talking = win;
        served = false;
      }
      // The proxy's own notifications; the app can send them too (through the proxy), to no avail:
      // the HTML goes once per window, and a claim to have left stops only the app making it.
      const proxy = proxyNotice(event.data);
      if (proxy === "ready" && !served) {
        served = true;
        post(notice(RESOURCE_READY, { html }));
      }
      if (proxy === "left") stop();
      if (proxy === null) hear(event.data);
      return true;
    },
    themeChanged() {
      const look = { theme: pageTheme(), styles: { variables: pageVariables(el) } };
      const key = JSON.stringify(look);
      if (key === lastLook) return;
      lastLook = key;
      contextChanged(look);
    },
    exitFullscreen() {
      if (mode !== "fullscreen") return false;
      setMode("inline");
      return true;
    },
    close() {
      return new Promise<void>((resolve) => {
        let timer = 0;
        const finish = () => {
          window.clearTimeout(timer);
          closing = null;
          destroy();
          resolve();
        };
        if (!frame?.contentWindow || !delivery.initialized) return finish();
        closing = { id: kernel.newId("teardown"), done: finish };
        timer = window.setTimeout(finish, TEARDOWN_WAIT_MS);
        post({ jsonrpc: "2.0", id: closing.id, method: "ui/resource-teardown", params: {} });
      });
    },
  };
}
