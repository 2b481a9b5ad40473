// Custom renderers and the browser-executed built-ins in jsdom: finding a module, failing clearly, and
// what each built-in acks. (Loading from a blob URL and the real browser APIs are checked in real
// JupyterLab by tests/test_browser_renderers.py.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body data-jp-theme-light=\"false\"></body></html>", { url: "http://127.0.0.1/" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "HTMLInputElement", "HTMLButtonElement", "HTMLTextAreaElement", "KeyboardEvent", "DOMException"]) g[name] = (dom.window as any)[name];

const { RendererModules, pickRender, theme } = await import("./api");
const { renderCustom } = await import("./custom");
import type { Answer, PromptState } from "../wire/protocol";
import type { PromptContext } from "../prompts/common";

function context(renderer: string, input: Record<string, unknown>, modules = new RendererModules()) {
  const answers: Answer[] = [];
  const prompt: PromptState = {
    tool_use_id: `t-${Math.random()}`, name: renderer.replace("nt.", ""), kind: "custom", input, description: "", status: "pending",
    answer: "", error: "", timeout: 60, requested_at: 0, output_schema: null, input_schema: null, renderer, scope: "", reasons: [], preview: null, editable: true,
  };
  const ctx: PromptContext = { prompt, submit: (a) => answers.push(a), send: () => undefined, onMessage: () => () => undefined, maxUploadBytes: 1, renderers: modules };
  const body = document.createElement("div");
  document.body.append(body);
  return { ctx, body, answers };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test("a module exports its render function as default, default.render or render", () => {
  const fn = () => undefined;
  assert.equal(pickRender({ default: fn }), fn);
  assert.equal(pickRender({ default: { render: fn } }), fn);
  assert.equal(pickRender({ render: fn }), fn);
  assert.equal(pickRender({ default: 3 }), null);
});

test("the theme is JupyterLab's body attribute", () => {
  assert.equal(theme(), "dark");
});

test("a module that never arrives, or is not among those sent, rejects with a reason", async () => {
  const modules = new RendererModules();
  await assert.rejects(modules.load("pick", 20), /did not arrive from the kernel within 0.02 s/);
  const waiting = modules.load("pick");
  modules.set({ other: "export default () => {}" });
  await assert.rejects(waiting, /the kernel sent no renderer module for pick/);
});

test("a card whose module is missing acks failed and says why", async () => {
  const modules = new RendererModules();
  modules.set({});
  const { ctx, body, answers } = context("pick_color", {}, modules);
  renderCustom(ctx, body);
  await tick();
  assert.deepEqual(answers, [{ status: "failed", error_text: "the renderer for pick_color: the kernel sent no renderer module for pick_color" }]);
  assert.match(body.textContent ?? "", /could not be shown/);
});

test("open_url: a blocked pop-up offers Open; the click opens it and acks via the button", () => {
  const opened: string[] = [];
  let allow = false;
  (window as any).open = (url: string) => (opened.push(url), allow ? { opener: window } : null);
  const { ctx, body, answers } = context("nt.open_url", { url: "https://example.org/x" });
  renderCustom(ctx, body);
  assert.deepEqual(answers, []);
  const button = body.querySelector<HTMLButtonElement>("button.nt-open")!;
  assert.match(body.textContent ?? "", /blocked the pop-up/);
  allow = true;
  button.click();
  assert.deepEqual(answers, [{ status: "success", output: { url: "https://example.org/x", via: "button" } }]);
  assert.equal(opened.length, 2);
});

test("open_url for an MCP server's URL request opens nothing until the click, shows who asks as text", () => {
  const opened: string[] = [];
  (window as any).open = (url: string) => (opened.push(url), { opener: window });
  const hostile = '<img src=x onerror="alert(1)">[x](javascript:alert(2))';
  const url = "https://bücher.example/pay";
  const input = { url, consent: true, host: "xn--bcher-kva.example (shown as bücher.example)", server: "<b>srv</b>", server_message: hostile };
  const { ctx, body, answers } = context("nt.open_url", input);
  renderCustom(ctx, body);
  assert.deepEqual(opened, []); // never auto-opened
  assert.deepEqual(answers, []);
  assert.equal(body.querySelector("img, b, a"), null); // the server's texts are text
  assert.match(body.textContent ?? "", /<b>srv<\/b> asks you to open a page on xn--bcher-kva\.example/);
  assert.ok((body.textContent ?? "").includes(hostile));
  body.querySelector<HTMLButtonElement>("button.nt-open")!.click();
  assert.equal(opened.length, 1);
  assert.deepEqual(answers, [{ status: "success", output: { url, via: "button" } }]); // the address as asked
});

test("an MCP sampling card shows the server, model and messages as plain text, whole", async () => {
  const { renderConfirm } = await import("../prompts/confirm");
  const hostile = '<img src=x onerror="alert(1)">**bold** [x](javascript:alert(2))';
  const input = { message: "An MCP server asks to use the model", confirm_label: "Send to the model", deny_label: "Refuse", server: "everything", model: "claude-test", messages: `user: ${hostile}\nuser: [image image/png]` };
  const { ctx, body, answers } = context("", input);
  renderConfirm(ctx, body, () => undefined);
  assert.equal(body.querySelector("img, a, strong, b"), null);
  const shown = body.querySelector(".nt-call-args-wrap")!;
  assert.ok((shown.textContent ?? "").includes(hostile) && (shown.textContent ?? "").includes("claude-test"));
  assert.ok(!(shown.textContent ?? "").includes("Send to the model")); // the labels are the buttons
  body.querySelector<HTMLButtonElement>("button.nt-primary")!.click();
  assert.deepEqual(answers, [{ value: "yes" }]);
});

test("open_url refuses what is not http(s) and reports a browser that throws", () => {
  (window as any).open = () => {
    throw new Error("no tabs");
  };
  const bad = context("nt.open_url", { url: "javascript:alert(1)" });
  renderCustom(bad.ctx, bad.body);
  assert.deepEqual(bad.answers, [{ status: "failed", error_text: "only http(s) addresses are opened, not javascript:" }]);
  const broken = context("nt.open_url", { url: "https://example.org" });
  renderCustom(broken.ctx, broken.body);
  assert.deepEqual(broken.answers, [{ status: "failed", error_text: "the browser could not open https://example.org: Error: no tabs" }]);
});

test("copy_to_clipboard: a gesture wanted shows Copy; counts code points as the kernel does", async () => {
  const written: string[] = [];
  let allowed = false;
  Object.defineProperty(window.navigator, "clipboard", {
    configurable: true,
    value: { writeText: (text: string) => (allowed ? (written.push(text), Promise.resolve()) : Promise.reject(new DOMException("denied", "NotAllowedError"))) },
  });
  g.navigator = window.navigator;
  const { ctx, body, answers } = context("nt.copy_to_clipboard", { text: "é😀" });
  renderCustom(ctx, body);
  await tick();
  assert.deepEqual(answers, []);
  allowed = true;
  body.querySelector<HTMLButtonElement>("button.nt-copy")!.click();
  await tick();
  assert.deepEqual(answers, [{ status: "success", output: { chars: 2, via: "button" } }]);
  assert.deepEqual(written, ["é😀"]);
});

test("notify: an empty message fails; a message shows a toast on the chat and acks", async () => {
  const empty = context("nt.notify", { message: "  " });
  renderCustom(empty.ctx, empty.body);
  assert.deepEqual(empty.answers, [{ status: "failed", error_text: "the notification is empty" }]);
  const chat = document.createElement("div");
  chat.className = "nt-chat";
  document.body.append(chat);
  const shown = context("nt.notify", { message: "Job done", level: "success" });
  chat.append(shown.body);
  renderCustom(shown.ctx, shown.body);
  await tick();
  assert.deepEqual(shown.answers, [{ status: "success", output: { shown_in: ["widget"] } }]);
  assert.equal(chat.querySelector(".nt-toast-success")?.textContent?.startsWith("Job done"), true);
});

test("open_url acts by itself once in a page: a card drawn again offers Open", () => {
  const opened: string[] = [];
  (window as any).open = (url: string) => (opened.push(url), { opener: window });
  const first = context("nt.open_url", { url: "https://example.org/b" });
  renderCustom(first.ctx, first.body);
  assert.deepEqual(opened, ["https://example.org/b"]);
  const again = context("nt.open_url", { url: "https://example.org/b" });
  again.ctx.prompt.tool_use_id = first.ctx.prompt.tool_use_id;
  renderCustom(again.ctx, again.body);
  assert.deepEqual([opened.length, again.answers], [1, []]);
  again.body.querySelector<HTMLButtonElement>("button.nt-open")!.click();
  assert.deepEqual(again.answers, [{ status: "success", output: { url: "https://example.org/b", via: "button" } }]);
});

test("download: each chunk restarts the wait; an error reply fails the card at once", () => {
  const timers = new Map<number, () => void>();
  let next = 0;
  const [realSet, realClear] = [window.setTimeout, window.clearTimeout];
  (window as any).setTimeout = (fn: () => void) => (timers.set(++next, fn), next);
  (window as any).clearTimeout = (id: number) => timers.delete(id);
  try {
    let handler: (msg: any, buffers?: DataView[]) => void = () => undefined;
    const sent: any[] = [];
    const card = context("nt.download_file", { path: "a.bin" });
    Object.assign(card.ctx, { send: (c: unknown) => sent.push(c), onMessage: (fn: typeof handler) => ((handler = fn), () => undefined) });
    renderCustom(card.ctx, card.body);
    const [started] = timers.keys();
    const chunk = { type: "download_chunk", request_id: sent[0].request_id, filename: "a.bin", size: 2, media_type: "" };
    handler({ ...chunk, seq: 0, last: false }, [new DataView(new ArrayBuffer(1))]);
    assert.equal(timers.has(started), false);
    assert.equal(timers.size, 1); // a fresh wait for the next chunk
    [...timers.values()][0]();
    assert.deepEqual(card.answers, [{ status: "failed", error_text: "the kernel sent nothing for 60 s" }]);
    const refused = context("nt.download_file", { path: "a.bin" });
    Object.assign(refused.ctx, { send: (c: unknown) => sent.push(c), onMessage: (fn: typeof handler) => ((handler = fn), () => undefined) });
    renderCustom(refused.ctx, refused.body);
    handler({ ...chunk, request_id: sent[1].request_id, seq: 0, last: true, filename: "", size: 0, error: "no pending download 'd1'" });
    assert.deepEqual(refused.answers, [{ status: "failed", error_text: "no pending download 'd1'" }]);
  } finally {
    Object.assign(window, { setTimeout: realSet, clearTimeout: realClear });
  }
});
