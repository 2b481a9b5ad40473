// MCP apps in their tool cards (jsdom, through the chat log as the widget uses it): the HTML asked
// of the kernel once per call and handed to the sandbox proxy in a frame that the card's redraws never
// move (the proxy's own script is proxy.test.ts's: here the test speaks as it); only the frame's own
// messages heard; the call's input and result delivered once each; requests passed to the kernel by
// id; size, full screen, theme; an app that navigates away stopped; teardown; and, with no kernel, a
// line instead of a frame.
import "../results/testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Item, KernelMsg, ViewMsg } from "../wire/protocol";
import { chatLog } from "../chat/log";
import { RendererModules } from "../renderers/api";
import { renderItem } from "../chat/transcript";
import { KERNEL_WAIT_MS, RESOURCE_WAIT_MS } from "./frame";
import { APP_LEFT, PROXY_READY, RESOURCE_READY, proxyDocument } from "./proxy";

const g = globalThis as Record<string, unknown>;
for (const name of ["DOMParser", "MutationObserver", "MessageEvent", "HTMLIFrameElement"]) g[name] = (window as never)[name];
g.getComputedStyle = window.getComputedStyle.bind(window);
if (!("navigator" in globalThis)) g.navigator = window.navigator;

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-src https://maps.example";
const TOOL = { name: "chart", description: "Draws a chart", inputSchema: { type: "object" } };
const APP_RESULT = { content: [{ type: "text", text: "3 points" }], structuredContent: { points: [1, 2, 3] } };
const DISPLAY = { view: null, language: null, collapsed: false, max_height: null };
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

const call = (id: string, fields: Partial<Item> = {}): Item =>
  ({ id, kind: "tool", name: "chart", input: { q: 1 }, status: "running", app: { server: "charts", uri: "ui://charts/view.html", tool: "chart" }, ...fields });

function chat() {
  const sent: ViewMsg[] = [];
  const handlers = new Set<(msg: KernelMsg) => void>();
  const link = { send: (m: ViewMsg) => void sent.push(m), onMessage: (f: (msg: KernelMsg) => void) => (handlers.add(f), () => handlers.delete(f)) };
  const traits: Record<string, unknown> = {};
  const model = { get: (name: string) => traits[name] ?? {}, on: () => {}, off: () => {} } as never;
  const log = document.createElement("div");
  document.body.append(log);
  const dom = { log, loose: document.createElement("div"), root: document.createElement("div") } as never;
  const view = chatLog(model, dom, link as never, new RendererModules());
  const reply = (msg: KernelMsg) => Array.from(handlers).forEach((f) => f(msg));
  const opens = () => sent.filter((m) => m.type === "app_open") as Array<Extract<ViewMsg, { type: "app_open" }>>;
  /** Answer the app_open of call `id` with `fields`; returns its frame. */
  const serve = (id: string, fields: Record<string, unknown> = {}) => {
    const ask = opens().find((m) => m.tool_use_id === id)!;
    reply({ type: "app_resource", request_id: ask.request_id, tool_use_id: id, html: "<!doctype html><title>chart</title><p>app</p>", csp: CSP, allow: "", prefers_border: null, tool: TOOL, ...fields } as KernelMsg);
    return log.querySelector<HTMLIFrameElement>(`.nt-app[data-tool-use-id="${id}"] iframe`);
  };
  const done = () => {
    view.dispose();
    log.remove();
  };
  return { traits, view, log, sent, reply, opens, serve, done };
}

/**
 * The app inside `frame`, through its proxy: what it receives from the host, and a way to speak as it
 * (or as anyone). Unless `ready` is false the proxy has said it is ready and got the app's document,
 * which `html` is; `got` starts after that.
 */
function app(frame: HTMLIFrameElement, ready = true) {
  const got: Array<Record<string, any>> = [];
  const win = frame.contentWindow!;
  (win as unknown as { postMessage: (m: unknown) => void }).postMessage = (m) => void got.push(m as Record<string, any>);
  const say = (data: unknown, source: unknown = win) => window.dispatchEvent(new window.MessageEvent("message", { data, source: source as Window }));
  const rpc = (fields: Record<string, unknown>, source?: unknown) => say({ jsonrpc: "2.0", ...fields }, source);
  const methods = () => got.map((m) => m.method ?? `#${m.id}`);
  let html = "";
  if (ready) {
    rpc({ method: PROXY_READY, params: {} });
    const [resource, ...rest] = got.splice(0);
    assert.deepEqual([resource?.method, rest], [RESOURCE_READY, []]);
    html = resource.params.html;
  }
  return { got, say, rpc, methods, html };
}

function fakeClock() {
  const real = { set: window.setTimeout, clear: window.clearTimeout };
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  window.setTimeout = ((fn: () => void, ms = 0) => (timers.set(++seq, { at: now + ms, fn }), seq)) as never;
  window.clearTimeout = ((id: number) => void timers.delete(id)) as never;
  return {
    advance(ms: number) {
      now += ms;
      for (const [id, t] of Array.from(timers)) if (t.at <= now) (timers.delete(id), t.fn());
    },
    restore() {
      window.setTimeout = real.set;
      window.clearTimeout = real.clear;
    },
  };
}

test("a card's app asks for its HTML once and runs it in a sandboxed frame with the kernel's policy", () => {
  const c = chat();
  c.view.upsert(call("t1"));
  assert.deepEqual(c.opens().map((m) => m.tool_use_id), ["t1"]);
  assert.match(c.log.querySelector(".nt-app-status")!.textContent!, /Loading the app of charts/);
  const frame = c.serve("t1", { allow: "clipboard-write" })!;
  assert.ok(frame);
  assert.equal(frame.getAttribute("sandbox"), "allow-scripts allow-forms");
  assert.equal(frame.getAttribute("allow"), "clipboard-write");
  assert.equal(frame.getAttribute("referrerpolicy"), "no-referrer");
  assert.equal(frame.getAttribute("loading"), "eager");
  assert.equal(frame.getAttribute("title"), "App of charts: chart");
  assert.equal(frame.hasAttribute("src"), false);
  // The frame holds the sandbox proxy (the kernel's policy first, frame-src its declared origins) ...
  assert.equal(frame.getAttribute("srcdoc"), proxyDocument(CSP, "clipboard-write", "App of charts: chart"));
  assert.ok(frame.getAttribute("srcdoc")!.startsWith(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${CSP}">`));
  // ... which gets the app's document, the same policy first in it, when it says it is ready.
  const { html } = app(frame);
  assert.ok(html.startsWith(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${CSP}"><meta name="referrer" content="no-referrer">`));
  assert.ok(html.endsWith("<title>chart</title></head><body><p>app</p></body></html>"), html);
  assert.equal(frame.style.height, "160px");
  assert.ok(frame.closest(".nt-app")!.classList.contains("nt-app-bordered")); // prefers_border unsaid
  c.view.upsert(call("t2"));
  c.serve("t2", { prefers_border: false, allow: "" });
  const second = c.log.querySelector('.nt-app[data-tool-use-id="t2"]')!;
  assert.equal(second.classList.contains("nt-app-bordered"), false);
  assert.equal(second.querySelector("iframe")!.getAttribute("allow"), "");
  c.done();
});

test("the frame stays put through the card's redraws: same element, same window, no new load", async () => {
  const c = chat();
  c.view.upsert(call("t1"));
  const frame = c.serve("t1")!;
  await tick();
  const card = c.log.firstElementChild!;
  const win = frame.contentWindow;
  let loads = 0;
  frame.addEventListener("load", () => loads++);
  c.view.upsert({ id: "t1", status: "done", result: "3 points", duration: 1.5 });
  c.view.upsert({ id: "t1", result: "3 points!" });
  await tick();
  assert.equal(c.log.firstElementChild, card); // redrawn in place
  assert.equal(c.log.querySelector("iframe"), frame);
  assert.equal(frame.contentWindow, win);
  assert.equal(loads, 0);
  assert.ok(card.classList.contains("nt-tool-done"));
  assert.equal(card.querySelector(".nt-result pre")!.textContent, "3 points!");
  assert.equal(card.querySelectorAll(".nt-app").length, 1);
  assert.equal(card.querySelector(".nt-app-slot"), null);
  // The card's parts in order: the app above the result.
  const order = Array.from(card.children).map((el) => el.className.split(" ")[0]);
  assert.ok(order.indexOf("nt-app") < order.indexOf("nt-result"), order.join());
  assert.equal(c.opens().length, 1);
  c.done();
});

test("only the frame's own messages are heard: the page, another card's app and no source are ignored", () => {
  const c = chat();
  c.view.upsert(call("t1"));
  c.view.upsert(call("t2"));
  const a = app(c.serve("t1")!);
  const b = app(c.serve("t2")!);
  const before = c.sent.length;
  const call1 = { id: 1, method: "tools/call", params: { name: "x", arguments: {} } };
  a.rpc(call1, window); // the page itself
  a.rpc(call1, null);
  a.rpc({ id: 2, method: "ping" }, {}); // something posing as a window
  assert.deepEqual(a.got, []);
  assert.equal(c.sent.length, before);
  // A message from b's window is b's, whoever wrote it: answered in b's frame only.
  a.rpc({ id: 3, method: "ping" }, c.log.querySelector<HTMLIFrameElement>('[data-tool-use-id="t2"] iframe')!.contentWindow);
  assert.deepEqual(a.got, []);
  assert.deepEqual(b.got, [{ jsonrpc: "2.0", id: 3, result: {} }]);
  a.rpc(call1);
  assert.equal(c.sent.length, before + 1);
  const forwarded = c.sent.at(-1) as Extract<ViewMsg, { type: "app_request" }>;
  assert.deepEqual([forwarded.type, forwarded.tool_use_id, forwarded.method], ["app_request", "t1", "tools/call"]);
  c.done();
});

test("the proxy gets the app's document once per window, when it says it is ready, and from no one else", async () => {
  const c = chat();
  c.view.upsert(call("t1"));
  c.view.upsert(call("t2"));
  const frame = c.serve("t1")!;
  const other = c.serve("t2")!;
  await tick();
  const a = app(frame, false);
  const ready = { method: PROXY_READY, params: {} };
  for (const source of [window, null, {}, other.contentWindow]) a.rpc(ready, source);
  assert.equal(a.got.length, 0);
  a.rpc(ready);
  assert.deepEqual(a.methods(), [RESOURCE_READY]);
  assert.ok(a.got[0].params.html.includes("<p>app</p>"));
  // Said again (by the app, through the proxy, or by anyone in that window): the document is not sent again.
  a.rpc(ready);
  a.rpc({ id: 1, method: PROXY_READY, params: {} }); // a request by that name is the app's own: unknown
  assert.deepEqual(a.got.slice(1), [{ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "method not found" } }]);
  // The exchange goes on as ever.
  a.rpc({ id: 2, method: "ping" });
  assert.deepEqual(a.got.at(-1), { jsonrpc: "2.0", id: 2, result: {} });
  c.done();
});

test("an app that navigated (the proxy says it left) is stopped, with a notice, and nothing of it heard", async () => {
  const c = chat();
  c.view.upsert(call("t1"));
  c.view.upsert(call("t2"));
  const frame = c.serve("t1")!;
  const other = c.serve("t2")!;
  await tick();
  const a = app(frame);
  a.rpc({ method: "ui/notifications/initialized" });
  a.rpc({ id: 1, method: "tools/call", params: { name: "slow", arguments: {} } });
  const asked = c.sent.at(-1) as Extract<ViewMsg, { type: "app_request" }>;
  a.rpc({ id: 2, method: APP_LEFT, params: {} }); // a request: the app's own, not the proxy's word
  assert.equal(frame.isConnected, true);
  a.rpc({ method: APP_LEFT, params: {} }, window); // the page's: nobody's frame
  assert.equal(frame.isConnected, true);
  const before = a.got.length;
  a.rpc({ method: APP_LEFT, params: {} });
  assert.equal(frame.isConnected, false);
  const notice = c.log.querySelector('[data-tool-use-id="t1"] .nt-app-status')!;
  assert.equal(notice.textContent, "The app tried to leave its card and was stopped.");
  assert.equal(notice.getAttribute("role"), "alert");
  assert.ok(other.isConnected);
  c.reply({ type: "app_reply", request_id: asked.request_id, tool_use_id: "t1", result: {} }); // too late: nobody to hear it
  const sent = c.sent.length;
  a.rpc({ id: 3, method: "tools/call", params: { name: "x", arguments: {} } });
  assert.equal(c.sent.length, sent);
  assert.equal(a.got.length, before);
  c.done();
});

test("initialize describes the host; the input after `initialized`, the result once when it comes", async () => {
  const c = chat();
  document.body.setAttribute("data-jp-theme-light", "false");
  c.view.upsert(call("t1"));
  const a = app(c.serve("t1")!);
  c.view.upsert({ id: "t1", activity: { step: "drawing", fraction: 0.5, message: "", preview: "" } });
  a.rpc({ id: 1, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo: { name: "a", version: "1" }, appCapabilities: {} } });
  const init = a.got[0].result;
  assert.equal(init.protocolVersion, "2026-01-26");
  assert.equal(init.hostInfo.name, "notebook_tools");
  assert.deepEqual(init.hostContext.toolInfo, { id: "t1", tool: TOOL });
  assert.equal(init.hostContext.theme, "dark");
  assert.equal(init.hostContext.displayMode, "inline");
  assert.equal(init.hostContext.containerDimensions.maxHeight, 640);
  assert.equal(init.hostContext.platform, "web");
  assert.equal(a.got.length, 1); // nothing before `initialized`
  a.rpc({ method: "ui/notifications/initialized", params: {} });
  assert.deepEqual(a.methods(), ["#1", "ui/notifications/tool-input"]);
  assert.deepEqual(a.got[1].params, { arguments: { q: 1 } });
  const shown = { kind: "mcp.app", data: { result: APP_RESULT }, display: DISPLAY, files: [], mime_type: null, summary: "3 points" };
  c.view.upsert({ id: "t1", status: "done", result: "3 points", shown });
  c.view.upsert({ id: "t1", duration: 2 });
  assert.deepEqual(a.methods(), ["#1", "ui/notifications/tool-input", "ui/notifications/tool-result"]);
  assert.deepEqual(a.got[2].params, APP_RESULT);
  // The theme changes: the app hears it (once per change).
  document.body.setAttribute("data-jp-theme-light", "true");
  await tick();
  const changed = a.got.filter((m) => m.method === "ui/notifications/host-context-changed");
  assert.equal(changed.length, 1);
  assert.equal(changed[0].params.theme, "light");
  assert.ok("variables" in changed[0].params.styles);
  document.body.removeAttribute("data-jp-theme-light");
  c.done();
});

test("a call that ends in an error, or was rebuilt from history, gives the app its text", () => {
  const c = chat();
  c.view.upsert(call("t1", { status: "error", result: "the server went away" }));
  c.view.upsert(call("t2", { status: "done", result: "from history" }));
  for (const [id, text, isError] of [["t1", "the server went away", true], ["t2", "from history", false]] as const) {
    const a = app(c.serve(id)!);
    a.rpc({ method: "ui/notifications/initialized" });
    assert.deepEqual(a.got.map((m) => m.method), ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    assert.deepEqual(a.got[1].params, { content: [{ type: "text", text }], isError });
  }
  c.done();
});

test("requests for the kernel go by request id and come back to the app's id; 10 minutes without an answer is an error", () => {
  const c = chat();
  c.view.upsert(call("t1"));
  const a = app(c.serve("t1")!);
  const clock = fakeClock();
  try {
    a.rpc({ id: "r1", method: "tools/call", params: { name: "refresh", arguments: { n: 2 } } });
    a.rpc({ id: 2, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "hi" }] } });
    a.rpc({ id: 3, method: "resources/read", params: "ui://x" });
    a.rpc({ id: 4, method: "ui/open-link", params: { url: "https://example.com" } });
    const asks = c.sent.filter((m) => m.type === "app_request") as Array<Extract<ViewMsg, { type: "app_request" }>>;
    assert.deepEqual(asks.map((m) => [m.method, m.tool_use_id]), [["tools/call", "t1"], ["ui/message", "t1"], ["ui/open-link", "t1"]]);
    assert.deepEqual(asks[0].params, { name: "refresh", arguments: { n: 2 } });
    assert.equal(new Set(asks.map((m) => m.request_id)).size, 3);
    assert.deepEqual(a.got, [{ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "params must be an object" } }]);
    c.reply({ type: "app_reply", request_id: "someone-else", tool_use_id: "t1", result: { nope: true } });
    c.reply({ type: "app_reply", request_id: asks[1].request_id, tool_use_id: "t1", error: { code: -32000, message: "declined" } });
    c.reply({ type: "app_reply", request_id: asks[0].request_id, tool_use_id: "t1", result: { content: [{ type: "text", text: "ok" }] } });
    c.reply({ type: "app_reply", request_id: asks[0].request_id, tool_use_id: "t1", result: { again: true } }); // one reply per request
    assert.deepEqual(a.got.slice(1), [
      { jsonrpc: "2.0", id: 2, error: { code: -32000, message: "declined" } },
      { jsonrpc: "2.0", id: "r1", result: { content: [{ type: "text", text: "ok" }] } },
    ]);
    clock.advance(KERNEL_WAIT_MS - 1);
    assert.equal(a.got.length, 3);
    clock.advance(1);
    assert.deepEqual(a.got[3], { jsonrpc: "2.0", id: 4, error: { code: -32603, message: "the kernel did not answer" } });
    a.rpc({ id: 5, method: "ui/download-file", params: {} });
    assert.equal(a.got[4].error.code, -32601);
  } finally {
    clock.restore();
  }
  c.done();
});

test("the app's size sets the frame's height within 48-640 px; full screen covers the window until Exit or Escape", () => {
  const c = chat();
  c.view.upsert(call("t1"));
  const frame = c.serve("t1")!;
  const a = app(frame);
  const box = frame.closest<HTMLElement>(".nt-app")!;
  a.rpc({ method: "ui/notifications/initialized" });
  a.rpc({ method: "ui/notifications/size-changed", params: { width: 5000, height: 100000 } });
  assert.equal(frame.style.height, "640px");
  a.rpc({ method: "ui/notifications/size-changed", params: { height: "300" } });
  assert.equal(frame.style.height, "640px");
  a.rpc({ method: "ui/notifications/size-changed", params: { height: 220 } });
  assert.equal(frame.style.height, "220px");
  a.rpc({ id: 7, method: "ui/request-display-mode", params: { mode: "fullscreen" } });
  assert.ok(box.classList.contains("nt-app-fullscreen"));
  const exit = box.querySelector<HTMLButtonElement>("button.nt-app-exit")!;
  assert.equal(exit.closest<HTMLElement>(".nt-app-bar")!.hidden, false);
  assert.equal(exit.textContent, "Exit full screen");
  assert.equal(document.activeElement, exit); // focus was nowhere: the way out takes it
  assert.equal(frame.style.height, "");
  const changed = a.got.find((m) => m.method === "ui/notifications/host-context-changed")!;
  assert.equal(changed.params.displayMode, "fullscreen");
  assert.ok("height" in changed.params.containerDimensions);
  assert.deepEqual(a.got.find((m) => m.id === 7)!.result, { mode: "fullscreen" });
  a.rpc({ method: "ui/notifications/size-changed", params: { height: 300 } }); // remembered for inline
  document.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  assert.equal(box.classList.contains("nt-app-fullscreen"), false);
  assert.equal(frame.style.height, "300px");
  a.rpc({ id: 8, method: "ui/request-display-mode", params: { mode: "pip" } });
  assert.deepEqual(a.got.at(-1), { jsonrpc: "2.0", id: 8, result: { mode: "inline" } });
  a.rpc({ id: 9, method: "ui/request-display-mode", params: { mode: "fullscreen" } });
  exit.click();
  assert.equal(box.classList.contains("nt-app-fullscreen"), false);
  assert.deepEqual(a.got.filter((m) => m.method === "ui/notifications/host-context-changed").map((m) => m.params.displayMode), ["fullscreen", "inline", "fullscreen", "inline"]);
  c.done();
});

test("a question for the person ends an app's full screen: no app covers a consent card", () => {
  const c = chat();
  c.view.upsert(call("t1"));
  const frame = c.serve("t1")!;
  const a = app(frame);
  const box = frame.closest<HTMLElement>(".nt-app")!;
  a.rpc({ method: "ui/notifications/initialized" });
  a.rpc({ id: 3, method: "ui/request-display-mode", params: { mode: "fullscreen" } });
  assert.ok(box.classList.contains("nt-app-fullscreen"));
  c.view.drawPrompts(); // no question yet: it stays
  assert.ok(box.classList.contains("nt-app-fullscreen"));
  c.traits.prompts = { p1: { tool_use_id: "p1", name: "mcp_apps_app_call", kind: "confirm", input: {}, description: "", status: "pending", answer: "", error: "", timeout: null, requested_at: 0, output_schema: null, input_schema: null, renderer: "" } };
  c.view.drawPrompts();
  assert.equal(box.classList.contains("nt-app-fullscreen"), false);
  c.done();
});

test("a proxy that loads a second document (it never navigates: something went wrong) is removed, with a notice", async () => {
  const c = chat();
  c.view.upsert(call("t1"));
  const frame = c.serve("t1")!;
  await tick(); // its first load
  const a = app(frame);
  frame.dispatchEvent(new window.Event("load")); // the same window loaded again
  assert.equal(frame.isConnected, false);
  const notice = c.log.querySelector(".nt-app-status")!;
  assert.equal(notice.textContent, "The app tried to leave its card and was stopped.");
  assert.equal(notice.getAttribute("role"), "alert");
  const before = c.sent.length;
  a.rpc({ id: 1, method: "tools/call", params: { name: "x" } });
  assert.equal(c.sent.length, before);
  c.view.upsert({ id: "t1", status: "done", result: "r" }); // redraws keep the notice, bring back nothing
  assert.equal(c.log.querySelector("iframe"), null);
  assert.equal(c.log.querySelector(".nt-app-status")!.textContent, "The app tried to leave its card and was stopped.");
  c.done();
});

test("a frame put back on the page (its card moved) loads afresh and the app starts over", async () => {
  const c = chat();
  c.view.upsert(call("t1", { status: "done", result: "r" }));
  const frame = c.serve("t1")!;
  await tick();
  let a = app(frame);
  a.rpc({ method: "ui/notifications/initialized" });
  assert.equal(a.got.length, 2);
  c.log.append(document.createElement("div"), c.log.firstElementChild!); // the card moved: a new window
  await tick();
  assert.equal(frame.isConnected, true); // a new window's first load is no navigation
  a = app(frame);
  a.rpc({ method: "ui/notifications/initialized" });
  assert.deepEqual(a.got.map((m) => m.method), ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
  c.done();
});

test("an error or no answer from the kernel is a line of text on the card", () => {
  const clock = fakeClock();
  try {
    const c = chat();
    c.view.upsert(call("t1"));
    c.view.upsert(call("t2"));
    c.serve("t1", { error: `<img src=x onerror="globalThis.pwned=1"> is not an app`, html: "" });
    const line = c.log.querySelector('[data-tool-use-id="t1"] .nt-app-status')!;
    assert.equal(line.textContent, `The app of charts cannot be shown: <img src=x onerror="globalThis.pwned=1"> is not an app`);
    assert.equal(c.log.querySelector("img"), null);
    assert.equal(c.log.querySelector('[data-tool-use-id="t1"] iframe'), null);
    clock.advance(KERNEL_WAIT_MS);
    assert.match(c.log.querySelector('[data-tool-use-id="t2"] .nt-app-status')!.textContent!, /did not answer within 10 minutes/);
    c.serve("t2"); // too late: nothing happens
    assert.equal(c.log.querySelector("iframe"), null);
    c.view.upsert(call("t3"));
    c.serve("t3", { csp: "  " });
    assert.match(c.log.querySelector('[data-tool-use-id="t3"] .nt-app-status')!.textContent!, /no Content-Security-Policy/);
    c.done();
  } finally {
    clock.restore();
  }
});

test("a kernel busy with a cell is waited for: the card says so, then shows the app when the answer comes", () => {
  const clock = fakeClock();
  try {
    const c = chat();
    c.view.upsert(call("t1"));
    const line = () => c.log.querySelector('[data-tool-use-id="t1"] .nt-app-status') as HTMLElement;
    clock.advance(RESOURCE_WAIT_MS - 1);
    assert.match(line().textContent!, /^Loading the app of charts/);
    clock.advance(1);
    assert.match(line().textContent!, /has not answered in 30 s \(it may be busy running a cell\)/);
    assert.equal(line().getAttribute("role"), "status"); // news, not an alarm
    clock.advance(KERNEL_WAIT_MS - RESOURCE_WAIT_MS - 1); // four minutes of a long cell, and more
    const frame = c.serve("t1")!;
    assert.ok(frame.isConnected);
    assert.equal(line().hidden, true);
    clock.advance(KERNEL_WAIT_MS); // no late error over the app
    assert.equal(line().hidden, true);
    c.done();
  } finally {
    clock.restore();
  }
});

test("when the view goes, each initialized app is asked to tear down, then its frame is removed", async () => {
  const c = chat();
  c.view.upsert(call("t1"));
  c.view.upsert(call("t2"));
  const f1 = c.serve("t1")!;
  const f2 = c.serve("t2")!;
  const a = app(f1);
  const b = app(f2);
  a.rpc({ method: "ui/notifications/initialized" });
  c.view.dispose();
  const teardown = a.got.find((m) => m.method === "ui/resource-teardown")!;
  assert.deepEqual(teardown.params, {});
  assert.deepEqual(b.got, []); // never initialized: nothing to tear down
  assert.equal(f2.isConnected, false);
  assert.equal(f1.isConnected, true); // waiting for its answer
  a.rpc({ id: teardown.id, result: {} });
  await tick();
  assert.equal(f1.isConnected, false);
  assert.equal(c.log.querySelector(".nt-app"), null);
  c.log.remove();
});

test("with no kernel (a copy of the transcript) the card shows a line instead of a frame, and its result", () => {
  const card = renderItem(call("t1", { status: "done", result: "3 points" }), () => null);
  assert.equal(card.querySelector("iframe"), null);
  assert.equal(card.querySelector(".nt-app-static")!.textContent, "Interactive app of charts (chart): shown in a live notebook.");
  assert.equal(card.querySelector(".nt-result pre")!.textContent, "3 points");
});
