// Thinking, server tools, citations and the usage line (issue 27), in jsdom, with hostile input:
// javascript:/data: URLs never become links, HTML in titles, cited text and search results stays text.
import { HOSTILE, noInjectedMarkup } from "../results/testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Item } from "../wire/protocol";
import { renderItem } from "../chat/transcript";
import { renderCited, renderSources, withPlaceholders } from "./citations";
import { webLink, webUrl } from "./links";
import { compact, contextFill, dollars, statusText, usageText } from "./usage";

const noCard = () => null;
const links = (el: Element) => Array.from(el.querySelectorAll("a"));

/** Like noInjectedMarkup, but the links we make ourselves are allowed: http(s), new tab, no opener. */
function onlySafeLinks(el: Element): void {
  for (const a of links(el)) {
    assert.match(a.getAttribute("href") ?? "", /^https?:\/\//);
    assert.equal(a.getAttribute("rel"), "noopener noreferrer");
    assert.equal(a.getAttribute("target"), "_blank");
    a.remove();
  }
  noInjectedMarkup(el);
}

test("webUrl: only absolute http(s) URLs", () => {
  for (const ok of ["https://example.org/a?b=1", "http://127.0.0.1:8888/x"]) assert.ok(webUrl(ok));
  for (const bad of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<script>", "file:///etc/passwd", "/relative", "mailto:a@b.c", "", null, 42]) {
    assert.equal(webUrl(bad), null, String(bad));
  }
});

test("webLink: a titled link with its host; a hostile title is text, a hostile URL no link", () => {
  const good = webLink(`<img src=x onerror="globalThis.pwned=1">`, "https://example.org/page");
  assert.equal(links(good).length, 1);
  assert.equal(links(good)[0].textContent, `<img src=x onerror="globalThis.pwned=1">`);
  assert.equal(good.querySelector(".nt-weblink-host")?.textContent, "example.org");
  onlySafeLinks(good);
  for (const url of ["javascript:globalThis.pwned=1", "data:text/html;base64,PHNjcmlwdD4=", "vbscript:x"]) {
    const bad = webLink("click me", url);
    assert.equal(links(bad).length, 0);
    assert.equal(bad.textContent, "click me");
    noInjectedMarkup(bad);
  }
});

test("marks go after the cited text, numbered, with the cited words as tooltip", () => {
  const text = "High tide is at 06:12, and again at **18:40**.";
  const el = renderCited(text, [{ at: 21, n: 1, quote: "Pleine mer 06:12" }, { at: 45, n: 2, quote: "<script>x</script>" }]);
  const marks = Array.from(el.querySelectorAll("sup.nt-cite"));
  assert.deepEqual(marks.map((m) => m.textContent), ["[1]", "[2]"]);
  assert.equal(marks[0].getAttribute("title"), "Pleine mer 06:12");
  assert.equal(marks[1].getAttribute("title"), "<script>x</script>");
  assert.equal(el.textContent?.trim(), "High tide is at 06:12[1], and again at 18:40[2].");
  assert.ok(el.querySelector("strong"), "the markdown still parses around the marks");
  noInjectedMarkup(el);
});

test("model text cannot forge a mark, and offsets past the end go at the end", () => {
  assert.equal(withPlaceholders("a\uE0009\uE001b", []), "a9b"); // the model's digits stay, as text
  const el = renderCited("fake \uE0007\uE001 mark", [{ at: 999, n: 1, quote: "" }]);
  assert.deepEqual(Array.from(el.querySelectorAll("sup")).map((m) => m.textContent), ["[1]"]);
  assert.equal(el.textContent?.trim(), "fake 7 mark[1]");
});

test("sources: numbered, titled links with hosts; hostile titles and URLs stay text", () => {
  const list = renderSources([
    { n: 2, title: "Second", url: "https://b.example/x", quote: "" },
    { n: 1, title: `</span><b>bold</b>`, url: "https://a.example/", quote: "cited <i>words</i>" },
    { n: 3, title: "Evil", url: "javascript:globalThis.pwned=1", quote: "" },
  ])!;
  assert.equal(list.querySelector(".nt-sources-head")?.textContent, "Sources");
  const rows = Array.from(list.querySelectorAll("li"));
  assert.deepEqual(rows.map((r) => r.getAttribute("value")), ["1", "2", "3"]);
  assert.equal(rows[0].querySelector("a")?.textContent, `</span><b>bold</b>`);
  assert.equal(rows[0].getAttribute("title"), "cited <i>words</i>");
  assert.equal(rows[2].querySelector("a"), null);
  assert.equal(links(list).length, 2);
  onlySafeLinks(list);
  assert.equal(renderSources([]), null);
});

test("an assistant item with citations shows marks and sources; without, as before", () => {
  const cited: Item = {
    id: "r1", kind: "assistant", text: "Tides[sic] are **daily**.",
    marks: [{ at: 5, n: 1, quote: "q" }],
    sources: [{ n: 1, title: "Tides", url: "https://maree.info/", quote: "q" }],
  };
  const el = renderItem(cited, noCard);
  assert.equal(el.querySelectorAll("sup.nt-cite").length, 1);
  assert.equal(el.querySelector(".nt-sources a")?.getAttribute("href"), "https://maree.info/");
  const plainItem = renderItem({ id: "r2", kind: "assistant", text: "hi" }, noCard);
  assert.equal(plainItem.querySelector(".nt-sources, sup"), null);
});

test("thinking: folded, 'Thinking…' with a spinner while it streams, redacted says so", () => {
  const live = renderItem({ id: "k1.0", kind: "thinking", status: "running", text: HOSTILE.join("\n\n") }, noCard);
  const fold = live.querySelector("details")!;
  assert.equal(fold.open, false);
  assert.equal(fold.querySelector("summary")?.textContent, "Thinking…");
  assert.ok(fold.querySelector("summary .nt-spinner"));
  noInjectedMarkup(live);
  const done = renderItem({ id: "k1.0", kind: "thinking", status: "done", text: "x" }, noCard);
  assert.equal(done.querySelector("summary")?.textContent, "Thinking");
  assert.notEqual(done.querySelector("details")?.getAttribute("data-fold"), fold.getAttribute("data-fold"));
  const redacted = renderItem({ id: "k1.1", kind: "thinking", status: "done", redacted: true, text: "" }, noCard);
  assert.equal(redacted.querySelector("summary")?.textContent, "Thinking (redacted)");
});

test("server tools: search results as links, code with output, errors as a line, hostile text inert", () => {
  const search = renderItem({
    id: "s1", kind: "server_tool", name: "web_search", status: "done", text: `Searched the web: <b>tides</b>`,
    links: [
      { title: `<img src=x onerror="globalThis.pwned=1">`, url: "https://maree.info/brest", detail: "2 days ago" },
      { title: "evil", url: "javascript:globalThis.pwned=1", detail: "" },
    ],
  }, noCard);
  assert.equal(search.querySelector(".nt-server-label")?.textContent, "Searched the web: <b>tides</b>");
  assert.equal(links(search).length, 1);
  onlySafeLinks(search);
  const code = renderItem({
    id: "s2", kind: "server_tool", name: "code_execution", status: "done", text: "Ran code",
    execution: { code: "print('<script>')", language: "python", stdout: "<script>\n", stderr: "warn", return_code: 1 },
  }, noCard);
  assert.ok(code.querySelector("pre.nt-code-box code"));
  assert.deepEqual(Array.from(code.querySelectorAll(".nt-text-box")).map((p) => p.textContent), ["<script>\n", "warn"]);
  assert.equal(code.querySelector(".nt-return-code")?.textContent, "return code 1");
  noInjectedMarkup(code);
  const failed = renderItem({ id: "s3", kind: "server_tool", status: "error", is_error: true, text: "Searched the web: q", result: "Searched the web: q failed: max_uses_exceeded" }, noCard);
  assert.equal(failed.querySelector(".nt-server-error")?.textContent, "Searched the web: q failed: max_uses_exceeded");
  const compaction = renderItem({ id: "b1", kind: "compaction", text: "We talked <script>about</script> tides." }, noCard);
  assert.equal(compaction.querySelector("summary")?.textContent, "Earlier conversation summarized");
  noInjectedMarkup(compaction);
});

test("a turn notice: title, explanation, advice, and Continue only when offered", () => {
  const refusal = renderItem({ id: "tn1", kind: "notice", level: "warning", text: "Claude declined.", explanation: "cyber: <b>no</b>", advice: "Rephrase.", can_continue: false }, noCard);
  assert.equal(refusal.querySelector(".nt-notice-explanation")?.textContent, "cyber: <b>no</b>");
  assert.equal(refusal.querySelector(".nt-notice-advice")?.textContent, "Rephrase.");
  assert.equal(refusal.querySelector("button"), null);
  noInjectedMarkup(refusal);
  const cut = renderItem({ id: "tn2", kind: "notice", level: "warning", text: "Cut off.", can_continue: true }, noCard);
  assert.equal(cut.querySelector("button.nt-continue")?.textContent, "Continue");
});

test("usage: turn and session, cost, cache share, and the context meter", () => {
  assert.deepEqual([compact(950), compact(1234), compact(34_500), compact(1_500_000)], ["950", "1.2k", "35k", "1.5M"]);
  assert.deepEqual([dollars(0.004), dollars(0.0312), dollars(1.254), dollars(0.0001), dollars(0)], ["$0.004", "$0.031", "$1.25", "<$0.001", "$0.000"]);
  const usage = {
    input_tokens: 300, output_tokens: 900, cache_read_input_tokens: 5000, requests: 4, cost_usd: 0.031,
    turn: { input_tokens: 216, cache_read_input_tokens: 984, output_tokens: 340, requests: 1, cost_usd: 0.004 },
    context_tokens: 52_000, context_window: 200_000,
  };
  assert.equal(usageText(usage), "turn 1.2k in · 340 out · $0.004 — session $0.031 · 82% cached");
  assert.equal(statusText("idle", usage), "idle · turn 1.2k in · 340 out · $0.004 — session $0.031 · 82% cached");
  assert.deepEqual(contextFill(usage), { fraction: 0.26, label: "Context window: 52,000 of 200,000 tokens (26%)" });
  assert.equal(contextFill({ ...usage, context_window: null }), null);
  // a model the prices file does not know: tokens, no made-up cost
  const unpriced = { requests: 1, unpriced_requests: 1, turn: { input_tokens: 10, output_tokens: 5, requests: 1, unpriced_requests: 1 } };
  assert.equal(usageText(unpriced), "turn 10 in · 5 out");
  // a scripted model (no key): estimated tokens, no cost, no session price
  const script = { requests: 2, scripted_requests: 2, cost_usd: 0, turn: { input_tokens: 879, output_tokens: 88, requests: 1, scripted_requests: 1, cost_usd: 0 } };
  assert.equal(usageText(script), "turn 879 in · 88 out (estimated) · scripted model, no cost");
  // a real turn after scripted ones: priced as it is, the session's price counts only Claude's
  const mixed = { requests: 3, scripted_requests: 2, cost_usd: 0.004, turn: { input_tokens: 216, output_tokens: 340, requests: 1, cost_usd: 0.004 } };
  assert.equal(usageText(mixed), "turn 216 in · 340 out · $0.004 — session $0.004");
  // before any turn's usage (a restored session): the older line
  assert.equal(statusText("idle", { input_tokens: 1200, output_tokens: 5 }), "idle · 1,200 in / 5 out tokens");
});
