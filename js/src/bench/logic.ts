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
  approval_required: "?",
  approved: "✓",
  denied: "✗",
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

/** The model-facing content as the text the model reads (base64 data left out: it is no text to read). */
export function contentText(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(withoutData(content), null, 2);
}

/** One part of the model-facing content as the person sees it. */
export type ContentPart =
  | { kind: "text"; text: string }
  | { kind: "image"; src: string; mediaType: string; bytes: number }
  | { kind: "other"; text: string };

// The pictures the bench shows: the Messages API's image types. Never SVG (it can carry script).
const IMAGE = /^image\/(?:png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function withoutData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutData);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === "data" && typeof v === "string" && v.length > 200 ? `(${v.length.toLocaleString("en-US")} characters of base64)` : withoutData(v);
  }
  return out;
}

/** The model-facing content in parts: text as text, each picture as a checked data: URL, anything else as JSON without its data. */
export function contentParts(content: unknown): ContentPart[] {
  if (!Array.isArray(content)) return [{ kind: "text", text: contentText(content) }];
  return content.map((block): ContentPart => {
    const b = (block && typeof block === "object" ? block : {}) as Record<string, any>;
    if (b.type === "text" && typeof b.text === "string") return { kind: "text", text: b.text };
    const source = b.source;
    if (b.type === "image" && source && typeof source === "object" && source.type === "base64" && typeof source.media_type === "string"
        && IMAGE.test(source.media_type) && typeof source.data === "string" && BASE64.test(source.data)) {
      return { kind: "image", src: `data:${source.media_type};base64,${source.data}`, mediaType: source.media_type, bytes: Math.floor((source.data.length * 3) / 4) };
    }
    return { kind: "other", text: JSON.stringify(withoutData(block), null, 2) };
  });
}

/** A tool's kind in words: where it runs and who calls it. */
export function kindText(t: BenchTool): string {
  const who = t.mode === "llm" ? "the model" : t.mode === "manual" ? "a person" : "the model or a person";
  return `${t.executor} tool, called by ${who}`;
}
