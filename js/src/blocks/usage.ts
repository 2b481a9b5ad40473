// The status line's usage: this turn's tokens and estimated cost, the session's cost, how much of
// the turn's input came from the prompt cache, and a small meter of how full the context window is
// (hidden when the model's window is unknown). DOM-free text first (tested), then the elements.
// A scripted model's requests (no API key) cost nothing and their tokens are the script's estimates:
// the line says so instead of a price.
import type { UsageCounts, UsageState } from "../wire/protocol";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { statusLine } from "../text/format";

/** 950, 1.2k, 34k, 1.5M. */
export function compact(n: number): string {
  if (!Number.isFinite(n) || n < 1000) return String(Math.round(Number.isFinite(n) ? n : 0));
  const [value, unit] = n < 1e6 ? [n / 1e3, "k"] : [n / 1e6, "M"];
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, "") : Math.round(value)}${unit}`;
}

/** $0.004, $0.031, $1.25; "<$0.001" for a cost too small to show. */
export function dollars(cost: number): string {
  if (cost > 0 && cost < 0.001) return "<$0.001";
  return `$${cost.toFixed(cost < 1 ? 3 : 2)}`;
}

const inputOf = (u: UsageCounts) => (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
const priced = (u: UsageCounts) => (u.requests ?? 0) > (u.unpriced_requests ?? 0);
const scripted = (u: UsageCounts) => (u.requests ?? 0) > 0 && (u.scripted_requests ?? 0) >= (u.requests ?? 0);

/**
 * "turn 1.2k in · 340 out · $0.004 — session $0.031 · 82% cached" (parts without data left out);
 * a scripted model's turn: "turn 879 in · 88 out (estimated) · scripted model, no cost".
 */
export function usageText(usage: UsageState): string {
  const turn = usage.turn;
  if (!turn) return "";
  const parts = [`turn ${compact(inputOf(turn))} in · ${compact(turn.output_tokens ?? 0)} out`];
  if (scripted(turn)) parts.push(" (estimated) · scripted model, no cost");
  else if (priced(turn)) parts.push(` · ${dollars(turn.cost_usd ?? 0)}`);
  if (!scripted(usage) && priced(usage)) parts.push(` — session ${dollars(usage.cost_usd ?? 0)}`);
  const input = inputOf(turn);
  const cached = input ? Math.round((100 * (turn.cache_read_input_tokens ?? 0)) / input) : 0;
  if (cached > 0) parts.push(` · ${cached}% cached`);
  return parts.join("");
}

/** The whole line: the agent's state, then the usage (the older token line before any turn's usage). */
export function statusText(status: string, usage: UsageState): string {
  const text = usageText(usage);
  return text ? `${status.replace(/_/g, " ")} · ${text}` : statusLine(status, usage);
}

/** How full the window is, 0-1, and its tooltip; null without a known window. */
export function contextFill(usage: UsageState): { fraction: number; label: string } | null {
  const window = usage.context_window;
  if (!window || window <= 0 || !usage.turn) return null;
  const used = Math.max(0, usage.context_tokens ?? 0);
  const fraction = Math.min(1, used / window);
  const label = `Context window: ${used.toLocaleString("en")} of ${window.toLocaleString("en")} tokens (${Math.round(fraction * 100)}%)`;
  return { fraction, label };
}

/** Draw the status line into `el`: its text, and the context meter when the window is known. */
export function drawStatus(el: HTMLElement, status: string, usage: UsageState): void {
  const text = h("span", { class: "nt-status-text" });
  setText(text, statusText(status, usage));
  const fill = contextFill(usage);
  if (!fill) {
    el.replaceChildren(text);
    return;
  }
  // A native <progress>: its fill comes from its value, so no inline style is ever written.
  const level = fill.fraction >= 0.9 ? " nt-context-full" : fill.fraction >= 0.7 ? " nt-context-high" : "";
  const meter = h("progress", {
    class: `nt-context${level}`, role: "meter", title: fill.label, "aria-label": fill.label,
    "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round(fill.fraction * 100)),
    max: "1", value: fill.fraction.toFixed(3),
  });
  el.replaceChildren(text, meter);
}
