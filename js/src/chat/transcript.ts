// The transcript: user messages, streamed assistant markdown, tool-call cards with inline prompts.
import type { Item } from "../wire/protocol";
import { h } from "../dom/dom";
import { argsSummary } from "../text/format";
import { clamp } from "../dom/clamp";
import { setText } from "../text/sanitize";
import { type MarkdownStream, streamedMarkdown } from "../text/streamed";
import { NO_KERNEL, type ResultsContext, renderShown } from "../results/index";
import { activityView } from "../blocks/activity";
import { renderCited, renderSources } from "../blocks/citations";
import { renderCompaction, renderThinking } from "../blocks/folds";
import { appInCopy } from "../apps/registry";
import { renderServerTool } from "../blocks/serverTool";
import "../blocks/blocks.css";

export function renderItem(item: Item, promptCard: (id: string, item: Item) => HTMLElement | null, results: ResultsContext = NO_KERNEL): HTMLElement {
  if (item.discarded) return h("div", { class: "nt-discarded", hidden: true });
  switch (item.kind) {
    case "user":
      return h("div", { class: "nt-msg nt-user", "aria-label": "You" }, h("div", { class: "nt-bubble" }, item.text ?? ""));
    case "assistant": {
      // Cited text carries numbered marks, and its sources are listed under it.
      if (item.marks?.length) {
        return h("div", { class: "nt-msg nt-assistant", "aria-label": "Claude" }, renderCited(item.text ?? "", item.marks), renderSources(item.sources));
      }
      const text = streamedMarkdown(item.text ?? "");
      const el = h("div", { class: "nt-msg nt-assistant", "aria-label": "Claude" }, text.el, renderSources(item.sources));
      streams.set(el, text);
      return el;
    }
    case "thinking":
      return renderThinking(item);
    case "server_tool":
      return renderServerTool(item);
    case "compaction":
      return renderCompaction(item);
    case "notice":
      if (item.level === "warning") return turnNotice(item);
      // An error is one sentence of what happened and what to do; its technical details stay folded.
      return h("div", { class: `nt-notice nt-${item.level ?? "info"}`, role: item.level === "error" ? "alert" : "status" },
        h("span", { class: "nt-notice-text" }, item.text ?? ""),
        item.retry ? h("button", { class: "nt-btn nt-retry", type: "button", "aria-label": "Retry the request" }, "Retry") : null,
        item.details ? h("details", { class: "nt-notice-details" }, h("summary", {}, "Details"), h("pre", {}, item.details)) : null);
    case "tool":
      return toolCard(item, promptCard(item.id, item), results);
    case "event": {
      // A one-line note of what happened (a plugin expanded, a skill activated, tools changed).
      const row = h("div", { class: "nt-event", role: "note" });
      setText(row, item.text ?? "");
      return row;
    }
    case "prompt":
      return promptCard(item.id, item) ?? h("div", { class: "nt-unknown" });
    default:
      return h("div", { class: "nt-unknown" });
  }
}

// An assistant message's text as it streams: its finished blocks stay, only the open tail is drawn again.
const streams = new WeakMap<HTMLElement, MarkdownStream>();

/** Bring `el`, drawn by renderItem, up to `item`'s new text in place; false when it must be drawn again. */
export function updateText(el: HTMLElement, item: Item): boolean {
  const text = streams.get(el);
  if (!text || item.kind !== "assistant" || item.discarded || item.marks?.length) return false;
  text.set(item.text ?? "");
  return true;
}

// The turn ended early (a refusal, a reply cut off, a full window): what happened, the API's
// explanation, what to do, and Continue when the turn can be carried on.
function turnNotice(item: Item): HTMLElement {
  return h("div", { class: "nt-notice nt-warning", role: "status" },
    h("div", { class: "nt-notice-title" }, item.text ?? ""),
    item.explanation ? h("div", { class: "nt-notice-explanation" }, item.explanation) : null,
    item.advice ? h("div", { class: "nt-notice-advice" }, item.advice) : null,
    item.can_continue ? h("button", { class: "nt-btn nt-continue", type: "button", "aria-label": "Continue the turn" }, "Continue") : null);
}

function toolCard(item: Item, prompt: HTMLElement | null, results: ResultsContext): HTMLElement {
  const status = item.status ?? "running";
  // The header says what the call does in one line of text; the arguments in full are in the body.
  const summary = argsSummary(item.input);
  const head = h("div", { class: "nt-tool-head" },
    status === "running" ? h("span", { class: "nt-spinner", "aria-label": "running" }) : h("span", { class: `nt-dot nt-${status}`, "aria-hidden": "true" }),
    h("span", { class: "nt-tool-name" }, item.name ?? "tool"),
    summary ? h("span", { class: "nt-args-summary", title: summary }, `· ${summary}`) : null,
    item.duration !== undefined ? h("span", { class: "nt-duration" }, `${item.duration.toFixed(2)}s`) : null,
  );
  const card = h("div", { class: `nt-tool nt-tool-${status}`, "data-tool-use-id": item.id }, head);
  // An approval card shows the arguments itself (and edits them): one copy on screen.
  if (summary && !prompt?.matches(".nt-prompt-approval.nt-pending")) {
    card.append(h("details", { class: "nt-tool-args" }, h("summary", {}, "Arguments"), h("pre", { class: "nt-args" }, JSON.stringify(item.input, null, 2))));
  }
  if (prompt) card.append(prompt);
  const activity = activityBlock(item);
  if (activity) card.append(activity);
  // An MCP server's interface for the call: its live frame, kept across redraws (apps/registry.ts);
  // with no kernel, a line saying so (the result below stands in for it).
  if (item.app) card.append(results.apps ? results.apps.frameFor(item) : appInCopy(item.app));
  if (item.shown && !item.is_error) {
    // Its rich view (a table, a diff, an image), and what the model read, folded beneath it.
    card.append(renderShown(item.shown, item.id, results));
    if (item.result) card.append(h("details", { class: "nt-result nt-model-text" }, h("summary", {}, "What Claude read"), h("pre", {}, item.result)));
  } else if (item.result !== undefined && item.result !== "") {
    card.append(h("details", { class: `nt-result${item.is_error ? " nt-result-error" : ""}`, open: item.is_error ? true : undefined },
      h("summary", {}, item.is_error ? "Error" : "Result"),
      h("pre", {}, item.result)));
  }
  return card;
}

// A running call's latest reports, under its head: replaced by its result when the call ends.
function activityBlock(item: Item): HTMLElement | null {
  const view = activityView(item.activity, item.status ?? "running");
  if (!view) return null;
  const block = h("div", { class: "nt-activity" });
  if (view.step) {
    const step = h("div", { class: "nt-activity-step" });
    setText(step, view.step);
    block.append(step);
  }
  if (view.fraction !== null || view.message) {
    const words = h("span", { class: "nt-activity-text" });
    setText(words, [view.percent, view.message].filter(Boolean).join(" "));
    const row = h("div", { class: "nt-activity-progress" });
    if (view.fraction !== null) {
      const bar = h("progress", { class: "nt-progress", max: "1", value: String(view.fraction), "aria-label": `${item.name ?? "tool"} progress` });
      bar.setAttribute("aria-valuetext", view.valueText);
      row.append(bar);
    }
    row.append(words);
    block.append(row);
  }
  if (view.preview) {
    const pre = h("pre", { class: "nt-activity-preview", "aria-label": "Partial result" });
    setText(pre, view.preview);
    block.append(clamp(pre, 3));
  }
  return block;
}
