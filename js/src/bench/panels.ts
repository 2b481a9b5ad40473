// The bench's result panels: live event log, model-facing result, validation badge, cost table,
// full result. Untrusted text (tool output, messages) reaches the DOM only through setText/h's text nodes.
import { h } from "../dom/dom";
import { isDataImage, setText } from "../text/sanitize";
import { bytes } from "../results/format";
import { contentParts, costSummary, eventLine, usd, validationBadge, type ContentPart } from "./logic";
import type { FinalPayload, StreamEvent } from "./protocol";

function section(title: string, ...children: HTMLElement[]): HTMLElement {
  return h("section", { class: "nt-bench-panel", "aria-label": title }, h("h4", {}, title), ...children);
}

export interface Results {
  el: HTMLElement;
  /** Forget the last run (a new one starts). */
  clear: () => void;
  /** Show one event of the stream (after a line for the `skipped` reports the kernel did not send). */
  event: (ev: StreamEvent, skipped?: number) => void;
  /** Show a refusal or a local problem. */
  problem: (text: string) => void;
}

/** One part of the model-facing content: text in a `pre`, a picture as an image (only a checked data: URL). */
function part(p: ContentPart): HTMLElement {
  if (p.kind === "image" && isDataImage(p.src)) {
    const img = h("img", { class: "nt-bench-image", alt: `image the model receives (${p.mediaType})` });
    img.src = p.src; // not h(): it refuses src, which takes only this checked data: URL here
    return h("figure", { class: "nt-bench-figure" }, img, h("figcaption", { class: "nt-bench-note" }, `${p.mediaType}, ${bytes(p.bytes)}: sent to the model as an image block`));
  }
  return h("pre", { class: "nt-bench-facing" }, p.kind === "image" ? "(an image)" : p.text);
}

export function resultPanels(): Results {
  const status = h("div", { class: "nt-bench-status", role: "status" });
  const log = h("ol", { class: "nt-bench-log", "aria-live": "polite" });
  const facing = h("div", { class: "nt-bench-facing-box" });
  const facingNote = h("div", { class: "nt-bench-note" });
  const badge = h("div", { class: "nt-bench-badge" });
  const badgeErrors = h("ul", { class: "nt-bench-errors" });
  const costLine = h("div", { class: "nt-bench-note" });
  const costBody = h("tbody");
  const costTable = h("table", { class: "nt-bench-cost" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Model"), h("th", { scope: "col" }, "API"), h("th", { scope: "col" }, "$ / M input"), h("th", { scope: "col" }, "Est. cost"))),
    costBody);
  const full = h("pre", { class: "nt-bench-json" });
  const fullBox = h("details", { class: "nt-bench-full" }, h("summary", {}, "Full result (JSON)"), full);
  const outcome = h("div", { class: "nt-bench-outcome", hidden: true },
    section("Model-facing result", facingNote, facing),
    section("Schema validation", badge, badgeErrors),
    section("Cost estimate", costLine, costTable),
    fullBox);
  const el = h("div", { class: "nt-bench-results" }, status, section("Stream events", log), outcome);
  let spinner: HTMLElement | null = null;

  const clear = () => {
    log.replaceChildren();
    setText(status, "");
    status.className = "nt-bench-status";
    outcome.hidden = true;
    spinner = null;
  };

  const showPayload = (p: FinalPayload) => {
    outcome.hidden = false;
    const block = p.model_facing_result;
    setText(facingNote, `Exactly what the model receives: tool_use_id ${block.tool_use_id}, name ${block.name}, is_error ${block.is_error}`);
    facing.replaceChildren(...contentParts(block.content).map(part));
    facing.classList.toggle("nt-bench-is-error", !!block.is_error);
    const b = validationBadge(p.validation);
    setText(badge, b.text);
    badge.className = `nt-bench-badge nt-bench-${b.tone}`;
    badgeErrors.replaceChildren(...b.errors.map((e) => h("li", {}, e)));
    const c = p.cost_estimate;
    costTable.hidden = !c;
    setText(costLine, c ? costSummary(c) : "No cost estimate");
    costBody.replaceChildren(...(c?.models ?? []).map((m) =>
      h("tr", {}, h("td", {}, m.name), h("td", {}, m.api), h("td", { class: "nt-num" }, usd(m.input_per_million)), h("td", { class: "nt-num" }, usd(m.estimated_cost_usd)))));
    setText(full, JSON.stringify(p.full_result, null, 2));
  };

  const event = (ev: StreamEvent, skipped = 0) => {
    if (skipped > 0) log.append(h("li", { class: "nt-bench-ev nt-bench-skipped", "data-kind": "skipped" }, `… ${skipped} more reports not shown`));
    const line = eventLine(ev);
    spinner?.remove();
    spinner = null;
    const row = h("li", { class: `nt-bench-ev nt-bench-ev-${line.kind}`, "data-kind": line.kind },
      h("span", { class: "nt-bench-icon", "aria-hidden": "true" }, line.icon),
      h("span", { class: "nt-bench-kind" }, line.kind),
      h("span", { class: "nt-bench-msg" }, line.text));
    if (line.spinner) {
      spinner = h("span", { class: "nt-bench-spinner", role: "img", "aria-label": "running" });
      row.append(spinner);
    }
    log.append(row);
    if (ev.event === "status_update") {
      setText(status, ev.data.message);
      status.className = `nt-bench-status nt-bench-st-${ev.data.status}`;
    } else if (ev.event === "error") {
      setText(status, `The run failed: ${ev.data.message}`);
      status.className = "nt-bench-status nt-bench-st-error";
    } else if (ev.event === "tool_event" && (ev.data.type === "tool_completed" || ev.data.type === "tool_error")) {
      setText(status, ev.data.message ?? "");
      status.className = `nt-bench-status nt-bench-st-${ev.data.type === "tool_error" ? "error" : "done"}`;
    } else if (ev.event === "data") {
      showPayload(ev.data);
    }
  };

  const problem = (text: string) => {
    setText(status, text);
    status.className = "nt-bench-status nt-bench-st-error";
  };

  return { el, clear, event, problem };
}
