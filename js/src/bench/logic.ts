// The bench's pure logic (no DOM): filtering the tool list, and the words and numbers its panels show.
import type { BenchTool, CostEstimate, StreamEvent, Validation } from "./protocol";

export const ALL = "";

/** The categories of `tools`, sorted, "(none)" last when a tool has none. */
export function categories(tools: BenchTool[]): string[] {
  const found = new Set(tools.map((t) => t.category || "(none)"));
  const named = [...found].filter((c) => c !== "(none)").sort();
  return found.has("(none)") ? [...named, "(none)"] : named;
}

/** The tools in `category` (ALL: every one) whose name, description or tags contain every word of `query`. */
export function filterTools(tools: BenchTool[], category: string, query: string): BenchTool[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return tools.filter((t) => {
    if (category !== ALL && (t.category || "(none)") !== category) return false;
    const text = [t.name, t.description, ...(t.tags ?? [])].join(" ").toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

const ICONS: Record<string, string> = {
  status_update: "ℹ",
  tool_started: "▶",
  tool_progress: "…",
  tool_step: "➜",
  tool_result_preview: "◐",
  tool_completed: "✓",
  tool_error: "✗",
  error: "⚠",
  data: "◆",
  end: "■",
};

/** What the event log shows for one event: its kind, an icon, the message, and whether it spins. */
export function eventLine(ev: StreamEvent): { kind: string; icon: string; text: string; spinner: boolean } {
  if (ev.event === "tool_event") {
    const d = ev.data;
    let text = d.message ?? "";
    if (d.type === "tool_step") {
      const extra = Object.entries(d.data ?? {}).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
      if (extra.length) text += ` (${extra.join(", ")})`;
    } else if (d.type === "tool_result_preview") {
      const preview = d.data?.preview;
      text += ": " + (typeof preview === "string" ? preview : JSON.stringify(preview));
    }
    return { kind: d.type, icon: ICONS[d.type] ?? "•", text, spinner: !!d.show_spinner };
  }
  if (ev.event === "status_update") return { kind: ev.event, icon: ICONS.status_update, text: `${ev.data.status}: ${ev.data.message}`, spinner: false };
  if (ev.event === "error") return { kind: "error", icon: ICONS.error, text: ev.data.message, spinner: false };
  if (ev.event === "data") return { kind: "data", icon: ICONS.data, text: "final payload", spinner: false };
  return { kind: "end", icon: ICONS.end, text: "stream ended", spinner: false };
}

/** The validation badge: its tone and text, and each error as "path: message". */
export function validationBadge(v: Validation | null | undefined): { tone: "pass" | "fail" | "none"; text: string; errors: string[] } {
  if (!v || v.status === "none") return { tone: "none", text: "No output schema registered for this tool", errors: [] };
  if (v.status === "skipped") return { tone: "none", text: "Not validated: the tool failed", errors: [] };
  if (v.status === "pass") return { tone: "pass", text: "✓ Output matches the registered schema", errors: [] };
  const errors = (v.errors ?? []).map((e) => `${e.path || "/"}: ${e.message}`);
  return { tone: "fail", text: `✗ Output does not match the registered schema (${errors.length} error${errors.length === 1 ? "" : "s"})`, errors };
}

/** Dollars with enough digits to tell a tiny cost from zero. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  if (value === 0) return "$0";
  return value >= 0.01 ? `$${value.toFixed(2)}` : `$${value.toPrecision(3)}`;
}

/** The line over the cost table: characters, tokens, counted or estimated, and the prices' date. */
export function costSummary(c: CostEstimate): string {
  const tokens = c.method === "count_tokens"
    ? `${c.estimated_tokens.toLocaleString("en-US")} tokens (counted by the API)`
    : `~${c.estimated_tokens.toLocaleString("en-US")} tokens (estimated at ${c.chars_per_token} chars/token)`;
  return `${c.char_count.toLocaleString("en-US")} chars · ${tokens} · prices of ${c.prices_taken}`;
}

/** The model-facing content as the text the model reads. */
export function contentText(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}

/** A tool's kind in words: where it runs and who calls it. */
export function kindText(t: BenchTool): string {
  const who = t.mode === "llm" ? "the model" : t.mode === "manual" ? "a person" : "the model or a person";
  return `${t.executor} tool, called by ${who}`;
}
