// What a control's text means as JSON (DOM-free): exact types, never "1" for 1.

/** Marks a field that has no value, so its key is left out of the object. */
export const UNSET: unique symbol = Symbol("unset");
export type Read = unknown | typeof UNSET;

export class Problem extends Error {}

/** Text of a number input as a JSON number; "" is unset for an optional field. `badInput` is the
 * input's validity.badInput: text the browser could not read as a number (it then reports ""). */
export function readNumber(text: string, integer: boolean, required: boolean, badInput = false): Read {
  if (badInput) throw new Problem(integer ? "Enter a whole number" : "Enter a number");
  const value = text.trim();
  if (value === "" && !required) return UNSET;
  if (integer) {
    if (!/^-?\d+$/.test(value)) throw new Problem(value === "" ? "Enter a whole number" : `Enter a whole number (not ${text.trim()})`);
    const n = Number(value);
    // Beyond 2^53 a JSON number would arrive rounded: refuse rather than send another number.
    if (!Number.isSafeInteger(n)) throw new Problem(`Enter a smaller number: at most ${Number.MAX_SAFE_INTEGER} either way can be sent exactly`);
    return n;
  }
  const n = Number(value);
  if (value === "" || !Number.isFinite(n)) throw new Problem(value === "" ? "Enter a number" : `Enter a number (not ${text.trim()})`);
  return n;
}

/** Text of a string input; "" is unset for an optional field, the empty string for a required one. */
export function readString(text: string, required: boolean): Read {
  return text === "" && !required ? UNSET : text;
}

/** A raw JSON box (the last fallback). */
export function readJson(text: string, required: boolean): Read {
  if (text.trim() === "" && !required) return UNSET;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Problem(`Enter valid JSON (${(err as Error).message.replace(/^JSON\.parse: /, "")})`);
  }
}

/** A `datetime-local` value ("2024-05-01T09:30") as RFC 3339 with the browser's offset at that date. */
export function dateTimeFromLocal(local: string, offsetMinutes?: number): string {
  if (local === "") return "";
  const withSeconds = /T\d\d:\d\d$/.test(local) ? `${local}:00` : local;
  const offset = offsetMinutes ?? -new Date(withSeconds).getTimezoneOffset();
  if (offset === 0) return `${withSeconds}Z`;
  const sign = offset > 0 ? "+" : "-";
  const abs = Math.abs(offset);
  return `${withSeconds}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An RFC 3339 date-time as the local "YYYY-MM-DDTHH:MM:SS" a `datetime-local` input shows. */
export function localFromDateTime(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return "";
  const local = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() ? `${local}:${pad(d.getSeconds())}` : local;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** JSON equality for plain data. */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Set `key` as an own, enumerable property: "__proto__" stays a key, never a prototype. */
export function put(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Whether `obj` has `key` itself (not inherited, as "constructor" and "toString" are). */
export function has(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own value of `key` (never an inherited one such as "constructor"). */
export function own(obj: Record<string, unknown>, key: string): unknown {
  return has(obj, key) ? obj[key] : undefined;
}
