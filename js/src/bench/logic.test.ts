// The bench's pure logic: the list's filter, the event log's lines, the badge, the cost words.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ALL, categories, contentParts, contentText, costSummary, eventLine, filterTools, kindText, usd, validationBadge } from "./logic";
import type { BenchTool } from "./protocol";

const tool = (name: string, category: string | null, description = "", tags: string[] = []): BenchTool => ({
  name, description, category, tags, input_schema: {}, output_schema: null, executor: "backend", mode: "llm",
  needs_approval: false, timeout: null, icon: null, version: null, display: {},
});
const TOOLS = [tool("web_search", "web", "Search the web", ["brave"]), tool("read_csv", "data", "Read a CSV file"), tool("echo", null, "Say it back")];

test("categories are sorted with (none) last", () => {
  assert.deepEqual(categories(TOOLS), ["data", "web", "(none)"]);
});

test("the filter takes a category and every word of the query, in name, description or tags", () => {
  assert.deepEqual(filterTools(TOOLS, ALL, "").map((t) => t.name), ["web_search", "read_csv", "echo"]);
  assert.deepEqual(filterTools(TOOLS, "web", "").map((t) => t.name), ["web_search"]);
  assert.deepEqual(filterTools(TOOLS, ALL, "BRAVE").map((t) => t.name), ["web_search"]);
  assert.deepEqual(filterTools(TOOLS, ALL, "csv file").map((t) => t.name), ["read_csv"]);
  assert.deepEqual(filterTools(TOOLS, "(none)", "say").map((t) => t.name), ["echo"]);
  assert.deepEqual(filterTools(TOOLS, "data", "web").map((t) => t.name), []);
});

test("event lines carry an icon per type, the step's data and the preview, and the spinner", () => {
  const ev = (type: string, message: string, data: Record<string, unknown>, spin = true) =>
    ({ event: "tool_event" as const, data: { type, call_id: "c", tool_name: "t", timestamp: 1, message, show_spinner: spin, data } });
  assert.deepEqual(eventLine(ev("tool_step", "scraping", { urls_scraped: 3, urls_total: 5 })), { kind: "tool_step", icon: "➜", text: "scraping (urls_scraped: 3, urls_total: 5)", spinner: true });
  assert.equal(eventLine(ev("tool_result_preview", "partial result", { preview: "abc" })).text, "partial result: abc");
  assert.deepEqual(eventLine(ev("tool_completed", "t finished", {}, false)).spinner, false);
  assert.equal(eventLine(ev("tool_error", "t failed", {})).icon, "✗");
  assert.equal(eventLine({ event: "error", data: { message: "boom" } }).text, "boom");
  assert.equal(eventLine({ event: "status_update", data: { status: "cancelled", message: "Cancelled" } }).text, "cancelled: Cancelled");
  assert.equal(eventLine({ event: "end", data: {} }).kind, "end");
});

test("the badge: pass, fail with each path and message, none, skipped", () => {
  assert.equal(validationBadge({ status: "pass" }).tone, "pass");
  const fail = validationBadge({ status: "fail", errors: [{ path: "/count", message: "'x' is not of type 'integer'" }, { path: "", message: "bad" }] });
  assert.equal(fail.tone, "fail");
  assert.deepEqual(fail.errors, ["/count: 'x' is not of type 'integer'", "/: bad"]);
  assert.match(fail.text, /2 errors/);
  assert.equal(validationBadge({ status: "none" }).text, "No output schema registered for this tool");
  assert.equal(validationBadge({ status: "skipped" }).tone, "none");
});

test("cost words: dollars, counted or estimated, the prices' date", () => {
  assert.equal(usd(0.0000105), "$0.0000105");
  assert.equal(usd(1.5), "$1.50");
  assert.equal(usd(null), "—");
  const base = { char_count: 12450, estimated_tokens: 3558, chars_per_token: 3.5, prices_taken: "2026-11-22", models: [] };
  assert.equal(costSummary({ ...base, method: "estimate" }), "12,450 chars · ~3,558 tokens (estimated at 3.5 chars/token) · prices of 2026-11-22");
  assert.match(costSummary({ ...base, method: "count_tokens" }), /3,558 tokens \(counted by the API\)/);
});

test("content and kind in words", () => {
  assert.equal(contentText("plain"), "plain");
  assert.equal(contentText([{ type: "text", text: "a" }]), '[\n  {\n    "type": "text",\n    "text": "a"\n  }\n]');
  assert.equal(kindText(TOOLS[0]), "backend tool, called by the model");
});

test("model-facing content in parts: text, pictures as checked data: URLs, never SVG, no base64 walls", () => {
  const png = "iVBORw0KGgo" + "A".repeat(400);
  const parts = contentParts([
    { type: "text", text: "A figure: Revenue by region" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
    { type: "image", source: { type: "base64", media_type: "image/svg+xml", data: "PHN2Zz48c2NyaXB0Pg==" + "A".repeat(300) } },
    { type: "image", source: { type: "base64", media_type: "image/png", data: "not base64 \" onerror=alert(1)" } },
    { type: "image", source: { type: "url", url: "https://attacker.example/x.png" } },
  ]);
  assert.deepEqual(parts.map((p) => p.kind), ["text", "image", "other", "other", "other"]);
  assert.deepEqual(parts[1], { kind: "image", src: `data:image/png;base64,${png}`, mediaType: "image/png", bytes: Math.floor((png.length * 3) / 4) });
  const svg = parts[2].kind === "other" ? parts[2].text : "";
  assert.match(svg, /image\/svg\+xml/);
  assert.match(svg, /\(320 characters of base64\)/);
  assert.ok(!svg.includes("AAAAAAAAAA"));
  assert.deepEqual(contentParts("plain text"), [{ kind: "text", text: "plain text" }]);
  assert.ok(!contentText([{ type: "image", source: { data: png } }]).includes("AAAAAAAAAA"));
});
