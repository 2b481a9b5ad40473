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

/** The status line: state and token counts. */
export function statusLine(status: string, usage: Record<string, number>): string {
  const input = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
  const output = usage.output_tokens ?? 0;
  const label = status.replace(/_/g, " ");
  return input || output ? `${label} · ${input.toLocaleString("en")} in / ${output.toLocaleString("en")} out tokens` : label;
}
