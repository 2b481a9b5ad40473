// DOM-free rules of the file prompt's transfer (prompts/file.ts): which files an `accept` string
// takes, the chunks an upload is sent in, and the time a request to the kernel may wait for its reply.

export const MAX_CHUNK_BYTES = 4 * 1024 * 1024;
/** Bytes per chunk: 64 KiB under the cap leaves room for the message's JSON header, so no message passes 4 MiB. */
export const CHUNK_BYTES = MAX_CHUNK_BYTES - 64 * 1024;

/** Byte ranges [start, end) that split a file of `size` bytes into chunks of at most `chunk` bytes. */
export function planChunks(size: number, chunk: number = CHUNK_BYTES): Array<[number, number]> {
  if (chunk <= 0 || chunk > MAX_CHUNK_BYTES) throw new Error(`chunk size must be in (0, ${MAX_CHUNK_BYTES}]`);
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < size; start += chunk) ranges.push([start, Math.min(start + chunk, size)]);
  if (size === 0) ranges.push([0, 0]);
  return ranges;
}

/** The rules of an `accept` string as the kernel reads them (prompts/_accept.py): ".ext" in lower case,
 * "type/sub" or "type/*"; "csv" and "*.csv" mean ".csv"; [] (empty, or a wildcard) takes every file. */
export function acceptRules(accept: string): string[] {
  const rules: string[] = [];
  for (const raw of accept.split(",")) {
    let rule = raw.trim().toLowerCase();
    if (rule === "*" || rule === "*.*" || rule === "*/*") return [];
    if (!rule) continue;
    if (rule.startsWith("*.")) rule = rule.slice(1);
    else if (!rule.includes("/") && !rule.startsWith(".")) rule = `.${rule}`;
    rules.push(rule);
  }
  return rules;
}

/** Whether a file matches an `accept` string such as ".csv,.tsv", "csv" or "image/*" (empty accepts all). */
export function accepts(accept: string, name: string, type: string): boolean {
  const rules = acceptRules(accept);
  if (rules.length === 0) return true;
  const lower = name.toLowerCase();
  const mime = type.toLowerCase();
  return rules.some((rule) => {
    if (rule.startsWith(".")) return lower.endsWith(rule);
    if (rule.endsWith("/*")) return mime.startsWith(rule.slice(0, -1));
    return mime === rule;
  });
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

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The line under a listing: what it left out (other files, hidden ones), naming the folder and the filter. */
export function listingNote(msg: { entries: Array<{ is_dir: boolean }>; other?: number; hidden?: number }, folder: string, filter: string): string {
  const other = msg.other ?? 0;
  const hidden = msg.hidden ?? 0;
  const files = msg.entries.filter((entry) => !entry.is_dir).length;
  const left = [other ? `${plural(other, "other file")}` : "", hidden ? `${plural(hidden, "hidden file")}, never offered` : ""].filter(Boolean).join("; ");
  if (files > 0) return other ? `${plural(other, "other file")} here ${other === 1 ? "is" : "are"} not ${filter}.` : "";
  if (msg.entries.length === 0 && other === 0) return `This folder is empty: ${folder}${hidden ? ` (${left})` : ""}.`;
  return filter ? `No ${filter} file in ${folder}${left ? ` (${left})` : ""}.` : `No file in ${folder}${left ? ` (${left})` : ""}.`;
}
