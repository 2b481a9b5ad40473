// DOM-free logic of the widget, tested with node (src/logic.test.ts).

export const MAX_CHUNK_BYTES = 4 * 1024 * 1024;
/** Bytes per chunk: 64 KiB under the cap leaves room for the message's JSON header, so no message passes 4 MiB. */
export const CHUNK_BYTES = MAX_CHUNK_BYTES - 64 * 1024;
export const FILTER_THRESHOLD = 8;

/** Byte ranges [start, end) that split a file of `size` bytes into chunks of at most `chunk` bytes. */
export function planChunks(size: number, chunk: number = CHUNK_BYTES): Array<[number, number]> {
  if (chunk <= 0 || chunk > MAX_CHUNK_BYTES) throw new Error(`chunk size must be in (0, ${MAX_CHUNK_BYTES}]`);
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < size; start += chunk) ranges.push([start, Math.min(start + chunk, size)]);
  if (size === 0) ranges.push([0, 0]);
  return ranges;
}

/** Whether a file matches an `accept` string such as ".csv,.tsv" or "image/*" (empty accepts all). */
export function accepts(accept: string, name: string, type: string): boolean {
  const rules = accept.split(",").map((r) => r.trim().toLowerCase()).filter(Boolean);
  if (rules.length === 0) return true;
  const lower = name.toLowerCase();
  const mime = type.toLowerCase();
  return rules.some((rule) => {
    if (rule.startsWith(".")) return lower.endsWith(rule);
    if (rule.endsWith("/*")) return mime.startsWith(rule.slice(0, -1));
    return mime === rule;
  });
}

/** Options whose label contains the filter text (case-insensitive). */
export function filterOptions(options: string[], filter: string): string[] {
  const needle = filter.trim().toLowerCase();
  return needle ? options.filter((o) => o.toLowerCase().includes(needle)) : options.slice();
}

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
