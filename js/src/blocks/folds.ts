// Folded sections of a reply: the model's thinking ("Thinking…" with a spinner while it streams,
// "Thinking" once done, "Thinking (redacted)" when the API encrypted it) and a compaction's summary
// (a divider "Earlier conversation summarized"). Both start folded; a fold's `data-fold` key lets
// the log keep a fold the person opened while it streams (chat/log.ts), and changes once it is done,
// so a finished thinking section is shown folded again.
import type { Item } from "../wire/protocol";
import { h, markdown } from "../dom/dom";

export function renderThinking(item: Item): HTMLElement {
  const running = item.status === "running";
  const label = item.redacted ? "Thinking (redacted)" : running ? "Thinking…" : "Thinking";
  const summary = h("summary", { class: "nt-thinking-summary" },
    running ? h("span", { class: "nt-spinner", "aria-hidden": "true" }) : null,
    h("span", { class: "nt-thinking-label" }, label));
  const body = item.redacted
    ? h("div", { class: "nt-thinking-body nt-thinking-redacted" }, "The API encrypted this thinking; it is sent back as it came.")
    : h("div", { class: "nt-thinking-body" }, markdown(item.text ?? ""));
  const fold = h("details", { class: "nt-thinking-fold", "data-fold": `thinking-${running ? "running" : "done"}` }, summary, body);
  return h("div", { class: `nt-thinking${running ? " nt-thinking-live" : ""}`, "aria-label": "Claude's thinking", "aria-busy": running ? "true" : undefined }, fold);
}

export function renderCompaction(item: Item): HTMLElement {
  const fold = h("details", { class: "nt-compaction-fold", "data-fold": "compaction" },
    h("summary", {}, "Earlier conversation summarized"),
    h("div", { class: "nt-compaction-body" }, markdown(item.text ?? "")));
  return h("div", { class: "nt-compaction", role: "separator", "aria-label": "Earlier conversation summarized" }, fold);
}
