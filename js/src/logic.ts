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

/** A text value turned into the type a JSON-schema property asks for (throws a readable error). */
export function coerceArg(text: string, prop: { type?: string } = {}): unknown {
  const value = text.trim();
  switch (prop.type) {
    case "integer": {
      if (!/^-?\d+$/.test(value)) throw new Error(`"${text}" is not a whole number`);
      return Number.parseInt(value, 10);
    }
    case "number": {
      const n = Number(value);
      if (value === "" || Number.isNaN(n)) throw new Error(`"${text}" is not a number`);
      return n;
    }
    case "boolean":
      if (["true", "yes", "1"].includes(value.toLowerCase())) return true;
      if (["false", "no", "0"].includes(value.toLowerCase())) return false;
      throw new Error(`"${text}" is not true or false`);
    case "string":
      return text;
    default:
      try {
        return JSON.parse(value);
      } catch {
        return text;
      }
  }
}

export type SlashCommand =
  | { kind: "help" }
  | { kind: "tools" }
  | { kind: "clear" }
  | { kind: "status" }
  | { kind: "plugins" }
  | { kind: "plugin"; name: string; action: "expand" | "collapse" }
  | { kind: "tool"; name: string; args: Record<string, string> }
  | { kind: "error"; message: string };

/** Split a command line into words, keeping "quoted strings" together. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2] ?? m[3]);
  }
  return words;
}

/** Parse `/help`, `/tools`, `/clear`, `/status`, `/plugins`, `/expand NAME`, `/collapse NAME`, `/tool NAME --arg value`,
 * `/NAME --arg value`; null for a plain message. */
export function parseSlash(line: string): SlashCommand | null {
  const text = line.trim();
  if (!text.startsWith("/")) return null;
  const [head, ...rest] = splitWords(text.slice(1));
  if (!head) return { kind: "help" };
  if (head === "help" || head === "tools" || head === "clear" || head === "status" || head === "plugins") {
    return rest.length ? { kind: "error", message: `/${head} takes no arguments` } : { kind: head };
  }
  if (head === "expand" || head === "collapse") {
    if (rest.length !== 1 || rest[0].startsWith("--")) return { kind: "error", message: `usage: /${head} NAME` };
    return { kind: "plugin", name: rest[0], action: head };
  }
  let name = head;
  let words = rest;
  if (head === "tool") {
    if (!rest[0] || rest[0].startsWith("--")) return { kind: "error", message: "usage: /tool NAME --arg value" };
    [name, ...words] = rest;
  }
  const args: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith("--") || word.length < 3) return { kind: "error", message: `expected --name before "${word}"` };
    const eq = word.indexOf("=");
    if (eq > 2) {
      args[word.slice(2, eq)] = word.slice(eq + 1);
    } else if (i + 1 < words.length && !words[i + 1].startsWith("--")) {
      args[word.slice(2)] = words[++i];
    } else {
      args[word.slice(2)] = "true";
    }
  }
  return { kind: "tool", name, args };
}

/** `promise`, or a rejection with `message` when it has not settled after `ms`: every request the
 * view sends gets an answer, a reply or a visible timeout, never an endless wait. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string, onTimeout?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(message));
    }, ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err) => (clearTimeout(timer), reject(err)),
    );
  });
}

/** One argument of an edited call, as the answered approval card lists it. */
export interface EditedArg {
  key: string;
  /** The value it ran with, as JSON; null when the edit removed it. */
  value: string | null;
  changed: boolean;
}

/** "Approved with edits: {...}" (the kernel's summary of an edited approval) read back into its parts:
 * the arguments, changed ones first, and what follows them ("(remembered ...)"); null for any other answer. */
export function parseEditedAnswer(answer: string, original: Record<string, unknown>): { head: string; args: EditedArg[]; changed: number; tail: string } | null {
  const match = /^(Approved with edits): (\{[\s\S]*\})((?: \([^(){}]*\))?)$/.exec(answer);
  if (!match) return null;
  let edited: unknown;
  try {
    edited = JSON.parse(match[2]);
  } catch {
    return null;
  }
  if (typeof edited !== "object" || edited === null || Array.isArray(edited)) return null;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const args: EditedArg[] = Object.entries(edited).map(([key, value]) => ({
    key,
    value: JSON.stringify(value),
    changed: !(key in original) || !same(original[key], value),
  }));
  for (const key of Object.keys(original)) if (!(key in edited)) args.push({ key, value: null, changed: true });
  const changed = args.filter((a) => a.changed).length;
  // Changed first (stable sort): what the person did is what the card is for.
  args.sort((a, b) => Number(b.changed) - Number(a.changed));
  return { head: match[1], args, changed, tail: match[3].trim() };
}
