// The form engine over the corpus of real tool schemas (js/test-corpus/): every schema builds a
// form in jsdom, a sample value put in comes back out as exactly the same JSON, the form's
// defaults and the sample are checked by ajv, and a report says how many fields are real controls
// and which fall back to a raw JSON box, and why.
process.env.TZ = "UTC"; // date-time fields show local time; the round trip is checked in UTC
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1:8888/lab" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "DocumentFragment", "Text", "Event"]) g[name] = (dom.window as any)[name];

import { buildForm } from "./form";
import { classify, deref, type Schema } from "./schema";
import { validate, validatorFor } from "./validate";

const DIR = join(process.cwd(), "test-corpus");
const files = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort();
const corpus = files.map((file) => ({ file, ...(JSON.parse(readFileSync(join(DIR, file), "utf8")) as { source: string; tool: string; schema: Schema }) }));

/** A value a person could enter: every property given, not the defaults, valid where we can tell. */
function sample(raw: Schema | boolean | undefined, root: Schema, depth = 0, salt = 0): unknown {
  const { schema, kind } = classify(raw, root);
  switch (kind.kind) {
    case "choice":
      return kind.options[(kind.options.length - 1 + salt) % kind.options.length].value;
    case "string":
      return stringSample(schema, salt);
    case "integer":
    case "number": {
      const step = typeof schema.multipleOf === "number" ? schema.multipleOf : kind.kind === "integer" ? 1 : 0.5;
      const lo = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + step : 0;
      const hi = typeof schema.maximum === "number" ? schema.maximum : Infinity;
      const v = Math.ceil(lo / step) * step + step * (1 + salt);
      return v <= hi ? v : lo;
    }
    case "boolean":
      return schema.default === true ? false : true;
    case "array": {
      const min = schema.minItems ?? 0;
      const n = depth > 3 ? min : Math.min(Math.max(min, 2), schema.maxItems ?? 2);
      return Array.from({ length: n }, (_, i) => sample(kind.items, root, depth + 1, salt + i));
    }
    case "tuple":
      return kind.items.map((s, i) => sample(s, root, depth + 1, i));
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(kind.properties)) {
        if (depth > 4 && !kind.required.has(key)) continue;
        out[key] = sample(prop, root, depth + 1, salt);
      }
      if (kind.extra) out.extra_key = sample(kind.extra, root, depth + 1, salt);
      return out;
    }
    case "map":
      return depth > 3 ? {} : { first: sample(kind.values, root, depth + 1, 0), second: sample(kind.values, root, depth + 1, 1) };
    case "variants": {
      // Any-value fields: what a person would mostly type, text or a number.
      if (kind.anyValue) return salt % 2 === 0 ? `free text ${salt}` : salt + 0.5;
      const last = kind.variants[kind.variants.length - 1];
      return sample(last.schema, root, depth, salt);
    }
    case "json":
      return { any: ["json", 1] };
  }
}

function stringSample(schema: Schema, salt: number): string {
  const formats: Record<string, string> = {
    date: "2024-05-01", "date-time": "2024-05-01T09:30:00Z", email: "ada@example.com", uri: "https://example.com/a", url: "https://example.com/a",
    uuid: "123e4567-e89b-12d3-a456-426614174000", "uri-reference": "/a/b",
  };
  if (typeof schema.format === "string" && formats[schema.format]) return formats[schema.format];
  if (typeof schema.pattern === "string") {
    const re = new RegExp(schema.pattern, "u");
    const found = ["ABC", "abc", "svc-1", "deadbeef", "GB1 2AB", "a1", "x"].find((c) => re.test(c));
    if (found) return found;
  }
  const base = `text ${salt + 1}`;
  const min = schema.minLength ?? 0;
  const v = base.length >= min ? base : base.padEnd(min, "x");
  return typeof schema.maxLength === "number" ? v.slice(0, schema.maxLength) : v;
}

interface Row {
  file: string;
  controls: number;
  anyValues: number;
  fallbacks: Array<{ path: string; reason: string }>;
  roundTrip: boolean;
  sampleValid: boolean;
  browserChecks: boolean;
}
const rows: Row[] = [];

for (const entry of corpus) {
  test(`corpus ${entry.file}: builds, reads back exactly what was put in`, () => {
    assert.ok(entry.source, "every corpus file says where it comes from");
    const root = entry.schema;
    const value = sample(root, root);
    const form = buildForm(root, value, `c-${rows.length}`);
    document.body.append(form.el);
    const { controls, fallbacks, anyValues } = form.report();
    const read = form.peek();
    // The form gives back what it was given, with its JSON types.
    assert.deepEqual(read.value, value);
    const sampleValid = validate(root, value).length === 0;
    if (sampleValid) assert.deepEqual(read.problems, []);
    // Every declared property has a row: nothing dropped.
    const top = deref(root, root).properties ?? {};
    for (const key of Object.keys(top)) assert.ok(form.el.querySelector(`[id$="-${key.replace(/[^A-Za-z0-9_-]/g, "_")}-label"]`), `${key} has a field`);
    // The same schema's defaults also build and read without an exception.
    const blank = buildForm(root, undefined, `d-${rows.length}`);
    const defaults = blank.peek().value as Record<string, unknown>;
    // Defaults are pre-filled: each top-level default is what the untouched form sends.
    for (const [key, prop] of Object.entries<Schema>(top)) {
      const d = classify(prop, root).schema.default;
      if (d !== undefined && d !== null) assert.deepEqual(defaults[key], d, `${key} starts at its default`);
    }
    // ...and nothing else optional: a field with no default that nobody filled (an object, a
    // true/false box, a choice of kinds) is left out, as the person left it.
    const required = new Set<string>(deref(root, root).required ?? []);
    for (const key of Object.keys(top).filter((k) => defaults && Object.prototype.hasOwnProperty.call(defaults, k))) {
      const d = classify(top[key], root).schema.default;
      assert.ok(required.has(key) || d !== undefined, `${key}: optional, no default, untouched, yet sent as ${JSON.stringify(defaults[key])}`);
    }
    form.el.remove();
    rows.push({ file: entry.file, controls, anyValues, fallbacks, roundTrip: true, sampleValid, browserChecks: validatorFor(root) !== null });
  });
}

test("corpus report: at least 100 schemas, at least 98% of fields are real controls", () => {
  const fields = rows.reduce((n, r) => n + r.controls, 0);
  const fallbacks = rows.flatMap((r) => r.fallbacks.map((f) => ({ file: r.file, ...f })));
  const clean = rows.filter((r) => r.fallbacks.length === 0).length;
  const share = (100 * (fields - fallbacks.length)) / fields;
  const reasons = new Map<string, number>();
  for (const f of fallbacks) reasons.set(f.reason, (reasons.get(f.reason) ?? 0) + 1);
  const lines = [
    `form engine corpus: ${rows.length} schemas (${corpus.filter((c) => c.file.startsWith("mcp-")).length} from MCP servers, ` +
      `${corpus.filter((c) => c.file.startsWith("pydantic-")).length} pydantic, ${corpus.filter((c) => c.file.startsWith("anthropic-")).length} anthropic SDK types, ` +
      `${corpus.filter((c) => c.file.startsWith("notebook_tools-")).length} notebook_tools built-ins, ${corpus.filter((c) => c.file.startsWith("hand-")).length} hand-written)`,
    `  render with no raw-JSON fallback: ${clean} of ${rows.length}`,
    `  fields: ${fields}, real controls: ${fields - fallbacks.length} (${share.toFixed(1)}%), raw JSON: ${fallbacks.length}`,
    `  fields of any JSON value (a chooser: text, number, true/false, null, raw JSON last): ${rows.reduce((n, r) => n + r.anyValues, 0)}`,
    `  (counted on each form filled with a sample value: array items and map entries are fields too)`,
    `  sample values valid by ajv: ${rows.filter((r) => r.sampleValid).length}; ajv compiled: ${rows.filter((r) => r.browserChecks).length} of ${rows.length}`,
    "  fallbacks by reason:",
    ...[...reasons].map(([reason, n]) => `    ${n} × ${reason}`),
    "  fallbacks:",
    ...fallbacks.map((f) => `    ${f.file} ${f.path}: ${f.reason}`),
  ];
  console.log(lines.join("\n"));
  assert.ok(rows.length >= 100, `${rows.length} schemas`);
  assert.ok(share >= 98, `${share.toFixed(1)}% real controls`);
  assert.ok(rows.every((r) => r.browserChecks), "ajv compiles every schema");
});
