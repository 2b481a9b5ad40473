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
