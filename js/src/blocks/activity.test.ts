// A running tool's card: its latest step, bar and partial result, and that hostile reports stay text (jsdom).
import { HOSTILE, noInjectedMarkup } from "../results/testDom";
import { test } from "node:test";
import assert from "node:assert/strict";
import { activityView } from "./activity";
import { renderItem } from "../chat/transcript";

const running = (activity: unknown) => ({ id: "toolu_1", kind: "tool" as const, name: "scrape", status: "running" as const, input: {}, activity: activity as never });
const none = () => null;

test("activityView: the share as a percentage, words for screen readers, nothing when the call ended", () => {
  const view = activityView({ step: "scraping · urls_scraped 3 / urls_total 5", fraction: 0.4, message: "downloading", preview: "" }, "running");
  assert.deepEqual(view, { step: "scraping · urls_scraped 3 / urls_total 5", fraction: 0.4, percent: "40%", message: "downloading", valueText: "40%, downloading", preview: "" });
  assert.equal(activityView({ step: "x", fraction: 0.4, message: "", preview: "" }, "done"), null);
  assert.equal(activityView(null, "running"), null);
  assert.equal(activityView({ step: "", fraction: null, message: "", preview: "" }, "running"), null);
  // Out of range or not a number: clamped, or no bar at all.
  assert.equal(activityView({ step: "", fraction: 7, message: "", preview: "" }, "running")?.percent, "100%");
  assert.equal(activityView({ step: "s", fraction: Number.NaN, message: "", preview: "" }, "running")?.fraction, null);
  assert.equal(activityView({ step: "s", fraction: "0.5", message: 3, preview: {} } as never, "running")?.fraction, null);
  assert.equal(activityView({ step: "", fraction: null, message: "", preview: "" , }, "running"), null);
  assert.equal(activityView({ step: "", fraction: null, message: "thinking", preview: "" }, "running")?.valueText, "thinking");
});

test("the card shows the step, a progress bar with its value text, and the preview", () => {
  const card = renderItem(running({ step: "scraping · urls_scraped 3 / urls_total 5", fraction: 0.6, message: "page 3", preview: "partial rows" }), none);
  assert.ok(card.querySelector(".nt-spinner"));
  assert.equal(card.querySelector(".nt-activity-step")?.textContent, "scraping · urls_scraped 3 / urls_total 5");
  const bar = card.querySelector("progress.nt-progress");
  assert.equal(bar?.getAttribute("value"), "0.6");
  assert.equal(bar?.getAttribute("max"), "1");
  assert.equal(bar?.getAttribute("aria-valuetext"), "60%, page 3");
  assert.equal(card.querySelector(".nt-activity-text")?.textContent, "60% page 3");
  assert.equal(card.querySelector(".nt-activity-preview")?.textContent, "partial rows");
});

test("no bar when the share is unknown; the result replaces the activity when the call ends", () => {
  const card = renderItem(running({ step: "indexing", fraction: null, message: "", preview: "" }), none);
  assert.equal(card.querySelector("progress"), null);
  assert.equal(card.querySelector(".nt-activity-step")?.textContent, "indexing");
  const done = renderItem({ ...running({ step: "indexing", fraction: 1, message: "", preview: "p" }), status: "done", result: "42" }, none);
  assert.equal(done.querySelector(".nt-activity"), null);
  assert.equal(done.querySelector(".nt-spinner"), null);
  assert.equal(renderItem({ ...running(null), status: "done", result: "42" }, none).querySelector(".nt-activity"), null);
});

test("hostile step names, data and previews are text, never markup", () => {
  for (const evil of HOSTILE) {
    const card = renderItem({ ...running({ step: `${evil} · ${evil} 1`, fraction: 0.5, message: evil, preview: evil }), name: evil }, none);
    const activity = card.querySelector(".nt-activity")!;
    noInjectedMarkup(card);
    assert.equal(activity.querySelectorAll("img, b").length, 0);
    assert.ok(!activity.textContent?.includes("\u202E"), "a bidi override is shown, not applied");
  }
  const card = renderItem(running({ step: "<b>x</b>", fraction: null, message: "", preview: "" }), none);
  assert.equal(card.querySelector(".nt-activity-step")?.textContent, "<b>x</b>");
  assert.equal((globalThis as { pwned?: number }).pwned, undefined);
});
