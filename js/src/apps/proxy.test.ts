// The sandbox proxy's document: the kernel's policy first, with `frame-src` cut down to the declared
// origins, and its script run in jsdom: the HTML taken once from the parent only, messages passed
// both ways and nowhere else, a second load of the app's frame reported and the frame removed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { APP_LEFT, PROXY_READY, RESOURCE_READY, frameOrigins, proxyDocument, proxyNotice, proxyPolicy } from "./proxy";

const KERNEL = "default-src 'none'; script-src 'unsafe-inline' https://cdn.example; style-src 'unsafe-inline'; connect-src 'none'; frame-src 'none'; base-uri 'none'";
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

test("the proxy's frame-src is the declared origins of the kernel's, 'none' when there are none", () => {
  assert.equal(proxyPolicy(KERNEL), KERNEL); // 'none' kept, every other directive as it was, in order
  const declared = KERNEL.replace("frame-src 'none'", "frame-src https://maps.example https://*.tiles.example:8443 http://localhost:3000");
  assert.equal(proxyPolicy(declared), declared);
  assert.deepEqual(frameOrigins(declared), ["https://maps.example", "https://*.tiles.example:8443", "http://localhost:3000"]);
  // What is no declared origin goes: keywords, wildcards, schemes (a navigation to data: or javascript:).
  assert.equal(proxyPolicy("default-src 'none'; frame-src 'self' * data: blob: https: https://ok.example"), "default-src 'none'; frame-src https://ok.example");
  assert.equal(proxyPolicy("default-src 'none';  FRAME-SRC  *  ;"), "default-src 'none'; frame-src 'none'");
  // None at all (it would fall back to default-src, which may allow more): 'none', at the end.
  assert.equal(proxyPolicy("default-src 'none'; img-src data:"), "default-src 'none'; img-src data:; frame-src 'none'");
  // A second frame-src is ignored by browsers: it neither counts nor stays.
  assert.equal(proxyPolicy("frame-src https://a.example; frame-src https://b.example; img-src data:"), "frame-src https://a.example; img-src data:");
});

test("the proxy's document: our policy first in <head>, one inline script of ours, nothing of the app's", () => {
  const hostile = `x"></title></script><script>globalThis.pwned=1</script>`;
  const text = proxyDocument(KERNEL, `camera *; ${hostile}`, `App of ${hostile}`);
  assert.ok(text.startsWith(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${KERNEL}">`));
  const doc = new JSDOM(text).window.document;
  assert.equal(doc.head.firstElementChild!.getAttribute("content"), KERNEL);
  assert.equal(doc.querySelector('meta[name="referrer"]')!.getAttribute("content"), "no-referrer");
  const scripts = doc.querySelectorAll("script");
  assert.equal(scripts.length, 1);
  assert.equal(scripts[0].hasAttribute("src"), false);
  for (const method of [PROXY_READY, RESOURCE_READY, APP_LEFT]) assert.ok(scripts[0].textContent!.includes(`"${method}"`), method);
  assert.deepEqual(Array.from(doc.body.children, (el) => el.tagName), ["SCRIPT"]);
  assert.equal(doc.title, `App of ${hostile}`);
  const quoted = proxyDocument(`${KERNEL}; img-src https://a.example?"<x>&`, "", "t");
  assert.ok(quoted.includes(`img-src https://a.example?&quot;&lt;x&gt;&amp;">`)); // the attribute cannot end early
});

/** `m` as postMessage delivers it: a copy, of this realm's objects (the proxy's come from its own). */
const clone = (m: unknown) => JSON.parse(JSON.stringify(m)) as Record<string, any>;

/** The proxy's script running in jsdom: its parent is its own window, whose postMessage is recorded. */
function proxy(allow = "clipboard-write *") {
  const up: Array<Record<string, any>> = [];
  const dom = new JSDOM(proxyDocument(KERNEL, allow, "App of charts: chart"), {
    runScripts: "dangerously",
    beforeParse: (win) => void ((win as unknown as { postMessage: (m: unknown) => void }).postMessage = (m) => void up.push(clone(m))),
  });
  const win = dom.window;
  const say = (data: unknown, source: unknown) => win.dispatchEvent(new win.MessageEvent("message", { data, source: source as never }));
  const fromParent = (data: unknown) => say(data, win);
  const inner = () => win.document.querySelector("iframe");
  const resource = (html: unknown) => fromParent({ jsonrpc: "2.0", method: RESOURCE_READY, params: { html } });
  return { win, up, say, fromParent, inner, resource };
}

test("the proxy says it is ready, once, and makes the app's frame from the first HTML its parent sends", () => {
  const p = proxy();
  assert.deepEqual(p.up, [{ jsonrpc: "2.0", method: PROXY_READY, params: {} }]);
  for (const el of [p.win.document.documentElement, p.win.document.body]) assert.equal(el.style.cssText, "margin: 0px; height: 100%; overflow: hidden;");
  assert.equal(p.inner(), null);
  p.say({ jsonrpc: "2.0", method: RESOURCE_READY, params: { html: "<p>not the parent's</p>" } }, {});
  p.say({ jsonrpc: "2.0", method: RESOURCE_READY, params: { html: "<p>no source</p>" } }, null);
  p.resource(42); // no HTML: nothing to show, and still waiting
  assert.equal(p.inner(), null);
  p.resource("<p>app</p>");
  p.resource("<p>again</p>");
  const frames = p.win.document.querySelectorAll("iframe");
  assert.equal(frames.length, 1);
  const frame = frames[0];
  assert.equal(frame.getAttribute("srcdoc"), "<p>app</p>");
  assert.equal(frame.getAttribute("sandbox"), "allow-scripts allow-forms");
  assert.equal(frame.getAttribute("allow"), "clipboard-write *");
  assert.equal(frame.getAttribute("referrerpolicy"), "no-referrer");
  assert.equal(frame.getAttribute("title"), "App of charts: chart");
  assert.equal(frame.style.cssText, "width: 100%; height: 100%; border: 0px; display: block;");
  assert.equal(p.up.length, 1);
});

test("the proxy passes the parent's messages to the app and the app's to the parent, nobody else's", () => {
  const p = proxy();
  p.fromParent({ jsonrpc: "2.0", id: 1, result: {} }); // before the app: dropped
  p.resource("<p>app</p>");
  const app = p.inner()!.contentWindow!;
  const down: unknown[] = [];
  (app as unknown as { postMessage: (m: unknown) => void }).postMessage = (m) => void down.push(clone(m));
  p.fromParent({ jsonrpc: "2.0", id: 1, result: { ok: true } });
  p.fromParent({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {} });
  assert.deepEqual(down, [{ jsonrpc: "2.0", id: 1, result: { ok: true } }, { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {} }]);
  p.say({ jsonrpc: "2.0", id: 2, method: "ui/initialize", params: {} }, app);
  assert.deepEqual(p.up.slice(1), [{ jsonrpc: "2.0", id: 2, method: "ui/initialize", params: {} }]);
  p.say({ jsonrpc: "2.0", id: 3, method: "ping" }, {}); // someone else
  p.say({ jsonrpc: "2.0", id: 4, method: "ping" }, null);
  assert.equal(p.up.length, 2);
  assert.equal(down.length, 2);
});

test("a second load of the app's frame (it navigated) is reported to the parent and the frame removed", async () => {
  const p = proxy();
  p.resource("<p>app</p>");
  const frame = p.inner()!;
  const app = frame.contentWindow!;
  await tick(); // its first load
  assert.equal(frame.isConnected, true);
  assert.equal(p.up.length, 1);
  frame.dispatchEvent(new p.win.Event("load"));
  assert.equal(frame.isConnected, false);
  assert.deepEqual(p.up.at(-1), { jsonrpc: "2.0", method: APP_LEFT, params: {} });
  p.say({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, app);
  p.resource("<p>back again</p>");
  assert.equal(p.up.length, 2);
  assert.equal(p.inner(), null);
});

test("the host tells the proxy's two notifications from everything else", () => {
  assert.equal(proxyNotice({ jsonrpc: "2.0", method: PROXY_READY, params: {} }), "ready");
  assert.equal(proxyNotice({ jsonrpc: "2.0", method: APP_LEFT }), "left");
  assert.equal(proxyNotice({ jsonrpc: "2.0", id: 1, method: APP_LEFT }), null); // a request: the app's own
  for (const data of [null, "x", [], { method: PROXY_READY }, { jsonrpc: "2.0", method: "ui/initialize" }]) assert.equal(proxyNotice(data), null);
});
