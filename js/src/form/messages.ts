// What a person reads under a field when ajv refuses its value (DOM-free): a short instruction in
// plain words ("Enter a whole number", "Choose at least 1", "Use a colour like #1a2b3c"), never
// JSON-Schema text such as `must match pattern "^#[0-9a-fA-F]{6}$"`. The field's schema (ajv's
// `parentSchema`, kept with `verbose`) gives the words where it has them: a pattern with a
// description says what the description says; a well-known pattern or format gets its own
// sentence; the raw pattern is the last resort, after a sentence.
import type { ErrorObject } from "ajv";
import { deref } from "./schema";

type Params = Record<string, any>;

const TYPES: Record<string, string> = {
  integer: "Enter a whole number",
  number: "Enter a number",
  string: "Enter text",
  boolean: "Tick or untick the box",
  array: "Enter a list",
  object: "Fill in the fields",
  null: "Leave this empty (null)",
};

const FORMATS: Record<string, string> = {
  email: "Enter an email address, like name@example.com",
  uri: "Enter a web address, like https://example.com",
  url: "Enter a web address, like https://example.com",
  date: "Enter a date, like 2024-05-01",
  "date-time": "Enter a date and time, like 2024-05-01 09:30",
  time: "Enter a time, like 09:30:00",
  uuid: "Enter an id like 123e4567-e89b-12d3-a456-426614174000",
  ipv4: "Enter an IPv4 address, like 192.168.0.1",
};

// Patterns seen in tool schemas, by what they ask for. Tested against an example, not matched as text.
const KNOWN_PATTERNS: Array<{ accepts: string[]; refuses: string[]; say: string }> = [
  { accepts: ["#1a2b3c", "#fff"], refuses: ["1a2b3c", "#1a2b3g", "#ffff"], say: "Use a colour like #1a2b3c or #fff" },
  { accepts: ["#1a2b3c"], refuses: ["#fff", "1a2b3c", "#1a2b3g", "#1a2b3c4"], say: "Use a colour like #1a2b3c" },
  { accepts: ["https://example.com", "http://example.com"], refuses: ["ftp://example.com", "example.com"], say: "Enter a web address starting with http:// or https://" },
  { accepts: ["2024-05-01"], refuses: ["2024-5-1", "01/05/2024"], say: "Use a date like 2024-05-01" },
  { accepts: ["sales_2024", "a"], refuses: ["2024 sales", "a-b", ""], say: "Use letters, digits and _ only, not starting with a digit" },
];

/** A plain-words name of what a simple pattern accepts, or null when it is not one we know. */
export function describePattern(pattern: string): string | null {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch {
    return null;
  }
  for (const known of KNOWN_PATTERNS) {
    if (known.accepts.every((s) => re.test(s)) && known.refuses.every((s) => !re.test(s))) return known.say;
  }
  // ^[A-Z]{3}$ and the like: one character class, a count.
  const simple = /^\^\[([^\]]+)\](?:\{(\d+)(?:,(\d*))?\}|(\+))\$$/.exec(pattern);
  if (simple) {
    const [, cls, min, max, plus] = simple;
    const what = CLASSES[cls];
    if (what) {
      const count = plus ? "one or more" : max === undefined ? min : max === "" ? `at least ${min}` : `${min} to ${max}`;
      return `Use ${count} ${what}`;
    }
  }
  return null;
}

const CLASSES: Record<string, string> = {
  "A-Z": "capital letters",
  "a-z": "lower-case letters",
  "A-Za-z": "letters",
  "a-zA-Z": "letters",
  "0-9": "digits",
  "A-Z0-9": "capital letters or digits",
  "a-z0-9": "lower-case letters or digits",
  "A-Za-z0-9": "letters or digits",
  "a-zA-Z0-9": "letters or digits",
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function listed(values: unknown[]): string {
  const shown = values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return shown.length <= 6 ? shown.join(", ") : `${shown.slice(0, 6).join(", ")}, …`;
}

/** A list whose items are picked from fixed values (a multi-select, checkboxes) asks to "choose";
 * others to "add". Items given by `$ref` (pydantic's enums) are followed within `root`. */
function picks(schema: Record<string, any> | undefined, root: Record<string, any>): boolean {
  const raw = schema?.items;
  const items = raw && typeof raw === "object" ? deref(raw, root) : null;
  return !!items && typeof items === "object" && (Array.isArray(items.enum) || items.const !== undefined || Array.isArray(items.oneOf) || Array.isArray(items.anyOf));
}

/** The message for one ajv error, in plain words; `root` is the schema validated (its `$defs`). */
export function humanMessage(error: ErrorObject, root: Record<string, any> = {}): string {
  const p = error.params as Params;
  const schema = (error.parentSchema ?? undefined) as Record<string, any> | undefined;
  switch (error.keyword) {
    case "required":
      return "Fill this in: it is required";
    case "additionalProperties":
      return "This tool does not take a field of this name";
    case "type": {
      const types: string[] = Array.isArray(p.type) ? p.type : String(p.type).split(",");
      const wanted = types.filter((t) => t !== "null");
      return TYPES[wanted[0] ?? "null"] ?? `Enter ${wanted.join(" or ")}`;
    }
    case "enum":
      return `Choose one of: ${listed(p.allowedValues as unknown[])}`;
    case "const":
      return `Use ${listed([p.allowedValue])} here`;
    case "minimum":
      return `Enter ${p.limit} or more`;
    case "maximum":
      return `Enter ${p.limit} or less`;
    case "exclusiveMinimum":
      return `Enter a number above ${p.limit}`;
    case "exclusiveMaximum":
      return `Enter a number below ${p.limit}`;
    case "multipleOf":
      return `Enter a multiple of ${p.multipleOf}`;
    case "minLength":
      return p.limit === 1 ? "Enter at least one character" : `Enter at least ${plural(p.limit, "character")}`;
    case "maxLength":
      return `Use at most ${plural(p.limit, "character")}`;
    case "minItems":
      return picks(schema, root) ? `Choose at least ${p.limit}` : `Add at least ${plural(p.limit, "item")}`;
    case "maxItems":
      return picks(schema, root) ? `Choose at most ${p.limit}` : `Keep at most ${plural(p.limit, "item")}`;
    case "uniqueItems":
      // ajv's i and j come in either order (a real run gives i < j): name the earlier item first.
      return `Items ${Math.min(p.i, p.j) + 1} and ${Math.max(p.i, p.j) + 1} are the same: each must be different`;
    case "minProperties":
      return `Add at least ${plural(p.limit, "entry", "entries")}`;
    case "maxProperties":
      return `Keep at most ${plural(p.limit, "entry", "entries")}`;
    case "dependentRequired":
    case "dependencies":
      return `Also fill in ${p.missingProperty} when ${p.property} is given`;
    case "pattern": {
      const known = describePattern(String(p.pattern));
      if (known) return known;
      const said = typeof schema?.description === "string" && schema.description ? schema.description : typeof schema?.title === "string" ? schema.title : "";
      return said ? `Not in the expected form: ${said}` : `Not in the expected form (the pattern ${p.pattern})`;
    }
    case "format":
      return FORMATS[p.format] ?? `Enter a valid ${p.format}`;
    case "anyOf":
    case "oneOf":
      return "Choose one of the allowed kinds and fill it in";
    case "contains":
      return "The list needs at least one item of the allowed kind";
    case "propertyNames":
      return "A name here is not allowed";
    default: {
      const message = error.message ?? "is not valid";
      return `This value is not allowed (${message})`;
    }
  }
}
