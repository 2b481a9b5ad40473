// The host's side of MCP Apps without a page: which messages from an app are heard (JSON-RPC 2.0
// objects, at most 4 MB, at most 50 a second) and which answer each gets; the initialize result and
// the style variables; the tool call's notifications, each once and only after `initialized`; and the
// app's document with the kernel's policy first in <head>, whatever HTML the server sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import type { Item } from "../wire/protocol";
import {
  type AppHost, HEIGHT_MAX, HEIGHT_MIN, INVALID_PARAMS, INVALID_REQUEST, MAX_MESSAGE_BYTES, MAX_WAITING, METHOD_NOT_FOUND, RATE_LIMIT, TOO_MANY,
  bridge, clampHeight, dispatch, jsonBytes, nextMode, parseMessage, rateLimiter, rpcError,
} from "./bridge";
import { NOTHING_DELIVERED, PROTOCOL_VERSION, due, initializeResult, styleVariables, themeOf, toolResult } from "./hostContext";
import type { Delivery } from "./hostContext";
import { GUARD, appDocument } from "./srcdoc";

const rpc = (fields: Record<string, unknown>) => ({ jsonrpc: "2.0", ...fields });

test("a request, a notification and a response are told apart; anything else is refused", () => {
  assert.deepEqual(parseMessage(rpc({ id: 1, method: "ping" })), { kind: "request", id: 1, method: "ping", params: undefined });
  assert.deepEqual(parseMessage(rpc({ id: "a", method: "tools/call", params: { name: "x" } })), { kind: "request", id: "a", method: "tools/call", params: { name: "x" } });
  assert.deepEqual(parseMessage(rpc({ method: "ui/notifications/initialized" })), { kind: "notification", method: "ui/notifications/initialized", params: undefined });
  assert.deepEqual(parseMessage(rpc({ id: 7, result: {} })), { kind: "response", id: 7, result: {}, error: undefined });
  const cyclic: Record<string, unknown> = rpc({ id: 2, method: "ping" });
  cyclic.params = cyclic;
  for (const bad of [
    null, "ping", 42, [rpc({ id: 1, method: "ping" })], { id: 1, method: "ping" }, { jsonrpc: "1.0", id: 1, method: "ping" },
    rpc({ id: 1, method: 5 }), rpc({ id: null, method: "ping" }), rpc({ id: { x: 1 }, method: "ping" }), rpc({ id: NaN, method: "ping" }),
    rpc({ id: 1 }), rpc({}), rpc({ id: 1, method: "ping", params: { n: BigInt(1) } }), cyclic,
    Object.assign(Object.create({ evil: true }), { jsonrpc: "2.0", id: 1, method: "ping" }), // not a plain object
  ]) assert.equal(parseMessage(bad).kind, "refused", JSON.stringify(String(bad)));
  // A refused request whose id can be read is answered (see bridge); one whose id cannot is not.
  assert.deepEqual(parseMessage(cyclic), { kind: "refused", id: 2, reason: "not JSON" });
  assert.equal((parseMessage(rpc({ id: null, method: "ping" })) as { id: unknown }).id, null);
});

test("a message over 4 MB of JSON is refused, counted in UTF-8 bytes", () => {
  const euros = "€".repeat(1_500_000); // 1.5 M characters, 4.5 MB of UTF-8
  assert.ok(euros.length < MAX_MESSAGE_BYTES);
  assert.equal(jsonBytes({ a: euros }), 3 * 1_500_000 + 8);
  assert.equal(jsonBytes(() => 1), null);
  const refused = parseMessage(rpc({ id: 3, method: "tools/call", params: { text: euros } }));
  assert.deepEqual(refused, { kind: "refused", id: 3, reason: `larger than ${MAX_MESSAGE_BYTES} bytes` });
  assert.equal(parseMessage(rpc({ id: 4, method: "tools/call", params: { text: "a".repeat(1_000_000) } })).kind, "request");
});

test("the rate limiter lets 50 through at once, then 50 a second", () => {
  let now = 1000;
  const take = rateLimiter(RATE_LIMIT, () => now);
  for (let i = 0; i < RATE_LIMIT; i++) assert.equal(take(), true);
  assert.equal(take(), false);
  now += 100; // a tenth of a second: five more
  assert.equal([1, 2, 3, 4, 5, 6].map(() => take()).filter(Boolean).length, 5);
  now += 60_000;
  assert.equal(Array.from({ length: 60 }, () => take()).filter(Boolean).length, RATE_LIMIT); // never more than the bucket
});

function fakeHost(overrides: Partial<AppHost> = {}) {
  const calls: Array<[string, unknown?, unknown?]> = [];
  const answers: Array<(reply: { result: unknown } | { error: { code: number; message: string } }) => void> = [];
  const host: AppHost = {
    initialize: () => ({ init: true }),
    initialized: () => void calls.push(["initialized"]),
    displayMode: (mode) => (calls.push(["mode", mode]), nextMode("inline", mode)),
    resize: (height) => void calls.push(["resize", height]),
    waiting: () => answers.length,
    forward: (method, params, answer) => (calls.push(["forward", method, params]), void answers.push(answer)),
    response: (id) => void calls.push(["response", id]),
    ...overrides,
  };
  return { host, calls, answers };
}

function send(host: AppHost, message: Record<string, unknown>): object[] {
  const replies: object[] = [];
  const rpcMsg = parseMessage(rpc(message));
  assert.notEqual(rpcMsg.kind, "refused");
  dispatch(rpcMsg as Exclude<typeof rpcMsg, { kind: "refused" }>, host, (r) => replies.push(r));
  return replies;
}

test("each method gets its answer: initialize, ping, display mode, unknown ones", () => {
  const { host, calls } = fakeHost();
  assert.deepEqual(send(host, { id: 1, method: "ui/initialize", params: {} }), [{ jsonrpc: "2.0", id: 1, result: { init: true } }]);
  assert.deepEqual(send(host, { id: "p", method: "ping" }), [{ jsonrpc: "2.0", id: "p", result: {} }]);
  assert.deepEqual(send(host, { id: 2, method: "ui/request-display-mode", params: { mode: "fullscreen" } }), [{ jsonrpc: "2.0", id: 2, result: { mode: "fullscreen" } }]);
  assert.deepEqual(send(host, { id: 3, method: "ui/request-display-mode", params: { mode: "pip" } }), [{ jsonrpc: "2.0", id: 3, result: { mode: "inline" } }]);
  assert.deepEqual(send(host, { id: 4, method: "sampling/createMessage", params: {} }), [{ jsonrpc: "2.0", id: 4, error: { code: METHOD_NOT_FOUND, message: "method not found" } }]);
  assert.deepEqual(send(host, { method: "ui/notifications/whatever", params: {} }), []); // an unknown notification: ignored
  assert.deepEqual(send(host, { method: "notifications/message", params: { level: "info", data: "x".repeat(10_000) } }), []);
  assert.deepEqual(send(host, { method: "ui/notifications/initialized" }), []);
  assert.deepEqual(send(host, { id: 9, result: {} }), []);
  assert.deepEqual(calls, [["mode", "fullscreen"], ["mode", "pip"], ["initialized"], ["response", 9]]);
});

test("the size an app reports sets the inline height between 48 and 640 px; other values are ignored", () => {
  const { host, calls } = fakeHost();
  for (const height of [300.4, 10, 5000, -1, "300", NaN, null, undefined, Infinity]) send(host, { method: "ui/notifications/size-changed", params: { height, width: 9999 } });
  send(host, { method: "ui/notifications/size-changed", params: [400] });
  assert.deepEqual(calls.map((c) => c[1]), [300, HEIGHT_MIN, HEIGHT_MAX, HEIGHT_MIN, HEIGHT_MAX]);
  assert.equal(clampHeight(Number.NaN), null);
  assert.equal(clampHeight(-Infinity), HEIGHT_MIN);
});

test("a kernel method is passed on with its params and answered with the kernel's result or error", () => {
  const { host, calls, answers } = fakeHost();
  const replies: object[] = [];
  const listen = bridge(host, (r) => replies.push(r));
  listen(rpc({ id: 11, method: "tools/call", params: { name: "refresh", arguments: { n: 1 } } }));
  listen(rpc({ id: 12, method: "ui/open-link", params: { url: "https://example.com" } }));
  assert.deepEqual(calls, [["forward", "tools/call", { name: "refresh", arguments: { n: 1 } }], ["forward", "ui/open-link", { url: "https://example.com" }]]);
  assert.deepEqual(replies, []); // nothing until the kernel answers
  answers[1]({ error: { code: -32000, message: "the person declined" } });
  answers[0]({ result: { content: [] } });
  assert.deepEqual(replies, [
    { jsonrpc: "2.0", id: 12, error: { code: -32000, message: "the person declined" } },
    { jsonrpc: "2.0", id: 11, result: { content: [] } },
  ]);
});

test("params that are no object are refused at once, and so is a request past the waiting limit", () => {
  const { host, calls, answers } = fakeHost();
  for (const params of [undefined, [1, 2], "x", 5, null]) {
    assert.deepEqual(send(host, { id: 1, method: "resources/read", params }), [{ jsonrpc: "2.0", id: 1, error: { code: INVALID_PARAMS, message: "params must be an object" } }]);
  }
  assert.deepEqual(calls, []);
  for (let i = 0; i < MAX_WAITING; i++) send(host, { id: i, method: "ui/message", params: { role: "user", content: [] } });
  assert.equal(answers.length, MAX_WAITING);
  const [over] = send(host, { id: "x", method: "ui/message", params: {} }) as Array<{ error: { code: number } }>;
  assert.equal(over.error.code, TOO_MANY);
});

test("a flood is cut at 50 a second: dropped requests get an error, dropped notifications nothing", () => {
  const { host } = fakeHost();
  const replies: Array<{ id: unknown; result?: unknown; error?: { code: number } }> = [];
  const listen = bridge(host, (r) => replies.push(r as never), () => 5000);
  for (let i = 0; i < 60; i++) listen(rpc({ id: i, method: "ping" }));
  for (let i = 0; i < 5; i++) listen(rpc({ method: "ui/notifications/size-changed", params: { height: 100 } }));
  assert.equal(replies.length, 60);
  assert.equal(replies.filter((r) => r.result).length, RATE_LIMIT);
  assert.deepEqual(replies.slice(RATE_LIMIT).map((r) => [r.id, r.error?.code]), Array.from({ length: 10 }, (_, i) => [RATE_LIMIT + i, TOO_MANY]));
});

test("an invalid request with a readable id is answered -32600; junk is dropped silently", () => {
  const { host } = fakeHost();
  const replies: Array<{ id: unknown; error?: { code: number } }> = [];
  const listen = bridge(host, (r) => replies.push(r as never));
  listen("not even an object");
  listen({ id: 1, method: "ping" }); // no jsonrpc: not JSON-RPC 2.0
  listen(rpc({ id: 5, method: "tools/call", params: { big: "€".repeat(1_500_000) } }));
  assert.deepEqual(replies.map((r) => [r.id, r.error?.code]), [[5, INVALID_REQUEST]]);
});

test("the kernel's error reaches the app as a whole-number code and a message, whatever came", () => {
  assert.deepEqual(rpcError({ code: -32001, message: "no" }), { code: -32001, message: "no" });
  assert.deepEqual(rpcError({ code: 1.5, message: 3 }), { code: -32603, message: "the kernel refused the request" });
  assert.deepEqual(rpcError("boom"), { code: -32603, message: "the kernel refused the request" });
});

// The keys MCP Apps defines (McpUiStyleVariableKey, spec 2026-01-26).
const SPEC_KEYS = new Set([
  ...["primary", "secondary", "tertiary", "inverse", "ghost", "info", "danger", "success", "warning", "disabled"].flatMap((c) => [`--color-background-${c}`, `--color-text-${c}`, `--color-border-${c}`]),
  ...["primary", "secondary", "inverse", "info", "danger", "success", "warning"].map((c) => `--color-ring-${c}`),
  "--font-sans", "--font-mono", ...["normal", "medium", "semibold", "bold"].map((w) => `--font-weight-${w}`),
  ...["xs", "sm", "md", "lg"].flatMap((s) => [`--font-text-${s}-size`, `--font-text-${s}-line-height`]),
  ...["xs", "sm", "md", "lg", "xl", "2xl", "3xl"].flatMap((s) => [`--font-heading-${s}-size`, `--font-heading-${s}-line-height`]),
  ...["xs", "sm", "md", "lg", "xl", "full"].map((s) => `--border-radius-${s}`), "--border-width-regular",
  "--shadow-hairline", "--shadow-sm", "--shadow-md", "--shadow-lg",
]);

test("style variables come from JupyterLab's, under MCP Apps' names only; unset ones are left out", () => {
  const jp: Record<string, string> = {
    "--jp-layout-color0": " #111111", "--jp-layout-color1": "#222", "--jp-ui-font-color0": "rgba(255, 255, 255, 1)",
    "--jp-ui-font-color1": "#eee", "--jp-border-color1": "#444", "--jp-ui-font-family": "system-ui, sans-serif",
    "--jp-code-font-family": "Menlo, monospace", "--jp-border-radius": "2px",
  };
  const asked: string[] = [];
  const vars = styleVariables((name) => (asked.push(name), jp[name] ?? ""));
  assert.ok(asked.every((name) => name.startsWith("--jp-")));
  assert.equal(vars["--color-background-primary"], "#111111"); // trimmed
  assert.equal(vars["--color-background-secondary"], "#222");
  assert.equal(vars["--color-text-primary"], "rgba(255, 255, 255, 1)");
  assert.equal(vars["--color-text-secondary"], "#eee");
  assert.equal(vars["--color-border-primary"], "#444");
  assert.equal(vars["--font-sans"], "system-ui, sans-serif");
  assert.equal(vars["--font-mono"], "Menlo, monospace");
  assert.equal(vars["--border-radius-md"], "2px");
  assert.equal(vars["--font-weight-bold"], "700"); // a value of its own, not read
  assert.equal("--color-background-tertiary" in vars, false); // JupyterLab did not set it
  for (const key of Object.keys(vars)) assert.ok(SPEC_KEYS.has(key), key);
});

test("the theme follows JupyterLab's body attribute, else the system's preference", () => {
  assert.equal(themeOf("true", true), "light");
  assert.equal(themeOf("false", false), "dark");
  assert.equal(themeOf(null, true), "dark");
  assert.equal(themeOf(null, false), "light");
});

test("the initialize result names the protocol, the host, its capabilities and the call", () => {
  const tool = { name: "chart", inputSchema: { type: "object" } };
  const r = initializeResult({ toolUseId: "toolu_1", tool, theme: "dark", variables: { "--font-sans": "x" }, displayMode: "inline", dimensions: { width: 600, maxHeight: 640 }, locale: "de-DE", timeZone: "Europe/Berlin" });
  assert.equal(r.protocolVersion, PROTOCOL_VERSION);
  assert.equal(PROTOCOL_VERSION, "2026-01-26");
  assert.deepEqual(r.hostInfo, { name: "notebook_tools", version: "1.0.0" });
  assert.deepEqual(r.hostCapabilities, { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} } });
  assert.deepEqual(r.hostContext, {
    toolInfo: { id: "toolu_1", tool }, theme: "dark", styles: { variables: { "--font-sans": "x" } }, displayMode: "inline",
    availableDisplayModes: ["inline", "fullscreen"], containerDimensions: { width: 600, maxHeight: 640 }, locale: "de-DE", timeZone: "Europe/Berlin", platform: "web",
  });
});

const call = (fields: Partial<Item> = {}): Item => ({ id: "t1", kind: "tool", name: "chart", input: { q: 1 }, status: "running", ...fields });
const APP_RESULT = { content: [{ type: "text", text: "3 points" }], structuredContent: { points: [1, 2, 3] } };

test("the tool result the app gets: the server's own, else what the model read, else nothing while it runs", () => {
  assert.equal(toolResult(call()), null);
  assert.equal(toolResult(call({ status: "pending" })), null);
  assert.deepEqual(toolResult(call({ status: "done", result: "3 points", shown: { kind: "mcp.app", data: { result: APP_RESULT }, display: { view: null, language: null, collapsed: false, max_height: null }, files: [], mime_type: null, summary: null } })), APP_RESULT);
  assert.deepEqual(toolResult(call({ status: "done", result: "from history" })), { content: [{ type: "text", text: "from history" }], isError: false });
  assert.deepEqual(toolResult(call({ status: "done", result: "bad", is_error: true })), { content: [{ type: "text", text: "bad" }], isError: true });
  assert.deepEqual(toolResult(call({ status: "error", result: "boom" })), { content: [{ type: "text", text: "boom" }], isError: true });
  // A shown that is no CallToolResult: the text stands in.
  assert.deepEqual(toolResult(call({ status: "done", result: "r", shown: { kind: "mcp.app", data: { result: "nope" }, display: { view: null, language: null, collapsed: false, max_height: null }, files: [], mime_type: null, summary: null } })), { content: [{ type: "text", text: "r" }], isError: false });
});

test("notifications wait for `initialized`, then input and result go once each, the result when it comes", () => {
  let s = NOTHING_DELIVERED;
  let step = due(s, call({ status: "done", result: "x" }));
  assert.deepEqual(step.out, []); // not initialized yet: held
  s = { ...step.state, initialized: true };
  step = due(s, call());
  assert.deepEqual(step.out, [{ method: "ui/notifications/tool-input", params: { arguments: { q: 1 } } }]);
  s = step.state;
  assert.deepEqual(due(s, call()).out, []); // still running: nothing new
  step = due(s, call({ status: "done", result: "ok" }));
  assert.deepEqual(step.out, [{ method: "ui/notifications/tool-result", params: { content: [{ type: "text", text: "ok" }], isError: false } }]);
  assert.deepEqual(due(step.state, call({ status: "done", result: "ok", duration: 2 })).out, []); // once
  // Initialized after the call ended: both at once, input first.
  const late = due({ ...NOTHING_DELIVERED, initialized: true }, call({ status: "error", result: "e", input: undefined }));
  assert.deepEqual(late.out.map((n) => n.method), ["ui/notifications/tool-input", "ui/notifications/tool-result"]);
  assert.deepEqual(late.out[0].params, { arguments: {} });
});

test("arguments that stream arrive as tool-input-partial, each new form once, then tool-input whole", () => {
  let s: Delivery = { ...NOTHING_DELIVERED, initialized: true };
  let step = due(s, call({ status: "pending", streaming: true, input: {} }));
  assert.deepEqual(step.out, [{ method: "ui/notifications/tool-input-partial", params: { arguments: {} } }]);
  s = step.state;
  assert.deepEqual(due(s, call({ status: "pending", streaming: true, input: {} })).out, []); // no change: nothing
  step = due(s, call({ status: "pending", streaming: true, input: { q: "ab" } }));
  assert.deepEqual(step.out, [{ method: "ui/notifications/tool-input-partial", params: { arguments: { q: "ab" } } }]);
  s = step.state;
  step = due(s, call({ status: "running", streaming: false, input: { q: "abc" } }));
  assert.deepEqual(step.out, [{ method: "ui/notifications/tool-input", params: { arguments: { q: "abc" } } }]);
  assert.deepEqual(due(step.state, call({ status: "running", streaming: true, input: { q: "x" } })).out, []); // never after
  // Not initialized while it streamed: nothing held back but the whole input once it is.
  const held = due(NOTHING_DELIVERED, call({ status: "pending", streaming: true, input: { q: "a" } }));
  assert.deepEqual(held.out, []);
});

const parser = new new JSDOM("").window.DOMParser();
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src https://api.example.com";

function firstInHead(doc: string) {
  assert.ok(doc.startsWith("<!DOCTYPE html><html"), doc.slice(0, 40));
  const parsed = parser.parseFromString(doc, "text/html");
  const [policy, referrer, prefetch, guard] = Array.from(parsed.head.children);
  assert.equal(policy.outerHTML, `<meta http-equiv="Content-Security-Policy" content="${CSP}">`);
  assert.equal(referrer.outerHTML, `<meta name="referrer" content="no-referrer">`);
  assert.equal(prefetch.outerHTML, `<meta http-equiv="x-dns-prefetch-control" content="off">`);
  assert.equal(guard.outerHTML, `<script>${GUARD}</script>`); // the first script: it runs before any of the app's
  return parsed;
}

test("the app's document has the kernel's policy, no-referrer, no DNS prefetch and the guard first in <head>, whatever the server sent", () => {
  const hostile = [
    `<!doctype html><html><head><title>t</title><script>parent.x=1</script></head><body><p>hi</p></body></html>`,
    "", "just text", `<script>1</script>`,
    `<!-- a comment before --><html lang="en"><head><meta http-equiv="Content-Security-Policy" content="default-src *"></head></html>`,
    `<html><head x='"><meta http-equiv=refresh content="0;url=https://evil">'></head><body></body></html>`,
    `<frameset><frame src="https://evil"></frameset>`,
    `<head><noscript><p title="</noscript><script>parent.x=1</script>"></p></noscript></head>`,
    `<base href="https://evil/"><link rel=stylesheet href="x.css">`,
    `<svg><style><img src=x></style></svg>`,
    `<template shadowrootmode="open"><script>1</script></template>`,
  ];
  for (const html of hostile) firstInHead(appDocument(html, CSP, parser));
  const doc = firstInHead(appDocument(hostile[0], CSP, parser));
  assert.equal(doc.querySelector("p")?.textContent, "hi");
  assert.equal(doc.querySelectorAll("script")[1]?.textContent, "parent.x=1"); // the app's code is kept: it runs in the sandbox
  // The policy's own quotes cannot end its attribute.
  const tricky = `default-src 'none'"><script>1</script>`;
  const out = parser.parseFromString(appDocument("<p>x</p>", tricky, parser), "text/html");
  assert.equal(out.head.firstElementChild!.getAttribute("content"), tricky);
  assert.equal(out.querySelectorAll("script").length, 1); // the guard alone
});

test("the guard is one script the HTML parser cannot end early, and valid ES5-era JavaScript", () => {
  assert.ok(!GUARD.includes("</"), "nothing in it closes the <script>");
  assert.doesNotThrow(() => new Function(GUARD)); // it parses (a syntax error would leave the app unguarded)
  const out = parser.parseFromString(appDocument("<p>x</p>", CSP, parser), "text/html");
  assert.equal(out.head.querySelector("script")!.textContent, GUARD);
});
