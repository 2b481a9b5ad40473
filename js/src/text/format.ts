// DOM-free text of values as people read them: byte sizes, the seconds a prompt has left, and the
// status line (the agent's state and its token counts).

/** "1.5 MiB" style sizes. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** Seconds left before a prompt times out, or null without a limit. */
export function secondsLeft(requestedAt: number, timeout: number | null, now: number): number | null {
  if (timeout === null) return null;
  return Math.max(0, Math.ceil(requestedAt + timeout - now));
}

/** The countdown's text: "45 s left", "2:05 left", "1:02:05 left"; at zero, that an answer still counts
 * until the turn moves on (the kernel closes the card when it does). */
export function countdownText(left: number): string {
  if (left <= 0) return "Time is up: an answer still counts until the turn moves on";
  if (left < 60) return `${left} s left`;
  const pad = (n: number) => String(n).padStart(2, "0");
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  return h ? `${h}:${pad(m)}:${pad(s)} left` : `${m}:${pad(s)} left`;
}

/** Whether the countdown is near its end: the last fifth of the time, at least 10 s and at most 30 s. */
export function countdownUrgent(left: number, timeout: number): boolean {
  return left <= Math.min(30, Math.max(10, timeout * 0.2));
}

/** What a screen reader announces of the countdown: at a few marks only, else null. */
export function countdownAnnouncement(left: number, timeout: number): string | null {
  if (left <= 0) return "Time is up for this question; an answer still counts until the turn moves on.";
  const marks = [300, 60, 30, 10].filter((mark) => mark < timeout);
  return marks.includes(left) ? `${countdownText(left)} to answer this question.` : null;
}

/** The status line: state and token counts. */
export function statusLine(status: string, usage: Partial<Record<"input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens", number>>): string {
  const input = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
  const output = usage.output_tokens ?? 0;
  const label = status.replace(/_/g, " ");
  return input || output ? `${label} · ${input.toLocaleString("en")} in / ${output.toLocaleString("en")} out tokens` : label;
}

/** A tool call's arguments in one line of plain text for its card's header: `table: sales, n_rows: 12`
 * (strings without quotes, lists and objects as compact JSON), at most `limit` characters. */
export function argsSummary(input: Record<string, unknown> | undefined, limit = 80): string {
  if (!input || typeof input !== "object") return "";
  const text = Object.entries(input)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value) ?? String(value)}`)
    .join(", ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length <= limit ? text : `${text.slice(0, limit - 1).trimEnd()}…`;
}
