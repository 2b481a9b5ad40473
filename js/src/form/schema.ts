// JSON Schema → what control a node needs (DOM-free, so node tests it directly).
//
// Tool schemas arrive in many dialects: pydantic's `$defs` + `$ref`, `anyOf [T, null]` for every
// Optional, `allOf [{$ref}]` wrappers that carry a default, type lists, `const` branches with titles.
// `classify` reduces each node to one control kind; only what no control can express is "json",
// and it always says why, so the corpus report can list it.

export type Schema = Record<string, any>;

export type Kind =
  | { kind: "string"; input: "text" | "date" | "datetime-local" | "email" | "url" | "textarea" }
  | { kind: "integer" | "number" | "boolean" }
  | { kind: "choice"; options: Array<{ value: unknown; label: string }> }
  | { kind: "array"; items: Schema }
  | { kind: "tuple"; items: Schema[]; rest: Schema | null }
  | { kind: "object"; properties: Record<string, Schema>; required: Set<string>; extra: Schema | null }
  | { kind: "map"; values: Schema }
  // keyword and branch: where each variant is in the schema's own oneOf/anyOf list (null branches
  // are split off as nullability), so an error of a branch not chosen can be told apart.
  | { kind: "variants"; variants: Array<{ label: string; schema: Schema; branch?: number }>; anyValue?: boolean; keyword?: "oneOf" | "anyOf" }
  | { kind: "json"; reason: string };

export interface Node {
  schema: Schema;
  nullable: boolean;
  kind: Kind;
}

const MAX_REF_DEPTH = 32;

/** Positions in the original oneOf/anyOf of the branches kept after null branches were split off. */
const BRANCHES = "x-nt-branches";

/** A field that takes any JSON value (no type named): a chooser of what to enter, raw JSON last. */
const ANY_VALUE = [
  { label: "text", schema: { type: "string" } },
  { label: "number", schema: { type: "number" } },
  { label: "true/false", schema: { type: "boolean" } },
  { label: "null", schema: { type: "null" } },
  { label: "JSON (a list or an object)", schema: { "x-nt-json": true } },
];

/** Follow a local `$ref` ("#/$defs/X", "#/definitions/X", "#"), merging the referring node's own
 * keywords (description, default, title) over the target, as 2020-12 allows. */
export function deref(node: Schema, root: Schema, depth = 0): Schema {
  let current = node;
  let hops = depth;
  while (current && typeof current.$ref === "string") {
    if (hops++ > MAX_REF_DEPTH) return { ...current, $ref: undefined, "x-nt-unresolved": "a $ref cycle" };
    const target = pointer(root, current.$ref);
    const { $ref, ...own } = current;
    if (target === undefined) return { ...own, "x-nt-unresolved": `$ref ${$ref} not found` };
    current = { ...target, ...own };
  }
  // allOf with one member is how older pydantic attaches a default or description to a $ref.
  if (Array.isArray(current.allOf) && current.allOf.length === 1) {
    const { allOf, ...own } = current;
    return deref({ ...deref(allOf[0], root, hops), ...own }, root, hops);
  }
  return current;
}

function pointer(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#")) return undefined;
  const parts = ref.slice(1).split("/").filter((p) => p !== "").map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
  let at: any = root;
  for (const part of parts) {
    if (at === null || typeof at !== "object" || !(part in at)) return undefined;
    at = at[part];
  }
  return at;
}

const isNull = (s: Schema) => s && (s.type === "null" || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null) || s.const === null);

/** Resolve refs and split off nullability: `anyOf [T, null]`, `type: [T, "null"]`, `oneOf` likewise. */
export function normalise(raw: Schema | boolean | undefined, root: Schema): { schema: Schema; nullable: boolean } {
  if (raw === true || raw === undefined) return { schema: {}, nullable: false };
  if (raw === false) return { schema: { not: {} }, nullable: false };
  let schema = deref(raw, root);
  let nullable = false;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const resolved = branches.map((b: Schema) => deref(b, root));
    const rest = resolved.filter((b: Schema) => !isNull(b));
    if (rest.length === resolved.length) continue;
    nullable = true;
    const { [key]: _drop, ...own } = schema;
    // The outer node's description/default/title stay; a single remaining branch is the field itself.
    const kept = resolved.map((b: Schema, i: number) => (isNull(b) ? -1 : i)).filter((i: number) => i >= 0);
    schema = rest.length === 1 ? { ...rest[0], ...stripUnion(own) } : { ...own, [key]: rest, [BRANCHES]: { ...own[BRANCHES], [key]: kept } };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t: string) => t !== "null");
    if (types.length < schema.type.length) nullable = true;
    schema = { ...schema, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) {
    nullable = true;
    schema = { ...schema, enum: schema.enum.filter((v: unknown) => v !== null) };
  }
  return { schema, nullable };
}

function stripUnion(own: Schema): Schema {
  // Keywords of the outer node that describe the field, not its type.
  const keep: Schema = {};
  for (const key of ["title", "description", "default", "readOnly", "examples", "deprecated"]) if (key in own) keep[key] = own[key];
  return keep;
}


/** The control kind for one (normalised) node. */
export function classify(raw: Schema | boolean | undefined, root: Schema): Node {
  const { schema, nullable } = normalise(raw, root);
  return { schema, nullable, kind: kindOf(schema, root) };
}

function kindOf(schema: Schema, root: Schema): Kind {
  if (schema["x-nt-unresolved"]) return { kind: "json", reason: schema["x-nt-unresolved"] };
  if ("const" in schema) return { kind: "choice", options: [{ value: schema.const, label: schema.title ?? show(schema.const) }] };
  if (Array.isArray(schema.enum)) {
    const titles: unknown[] | undefined = schema["x-enumNames"] ?? schema.enumNames;
    return { kind: "choice", options: schema.enum.map((v: unknown, i: number) => ({ value: v, label: String(titles?.[i] ?? show(v)) })) };
  }
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) {
    const keyword = schema.oneOf !== undefined ? "oneOf" : "anyOf";
    const positions: number[] | undefined = schema[BRANCHES]?.[keyword];
    const branches = union.map((b: Schema) => deref(b, root));
    // enum with titles: every branch a const.
    if (branches.every((b: Schema) => "const" in b)) {
      return { kind: "choice", options: branches.map((b: Schema) => ({ value: b.const, label: String(b.title ?? b.description ?? show(b.const)) })) };
    }
    const used = new Map<string, number>();
    return {
      kind: "variants",
      keyword,
      variants: branches.map((b: Schema, i: number) => {
        const label = variantLabel(b, i, root);
        const n = (used.get(label) ?? 0) + 1;
        used.set(label, n);
        return { label: n > 1 ? `${label} (${n})` : label, schema: schema.properties || schema.required ? mergeBase(schema, b) : b, branch: positions?.[i] ?? i };
      }),
    };
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 1) {
    const merged = mergeAll(schema, root);
    if (merged) return kindOf(merged, root);
    return { kind: "json", reason: "allOf of schemas that do not merge into one object" };
  }
  let type = schema.type;
  if (type === undefined) type = inferType(schema);
  if (Array.isArray(type)) {
    if (type.length === 0) return { kind: "json", reason: "an empty type list" };
    return { kind: "variants", variants: type.map((t: string) => ({ label: t, schema: { ...schema, type: t } })) };
  }
  switch (type) {
    case "string":
      return { kind: "string", input: stringInput(schema) };
    case "integer":
    case "number":
    case "boolean":
      return { kind: type };
    case "array":
      if (Array.isArray(schema.prefixItems)) return { kind: "tuple", items: schema.prefixItems, rest: schema.items === false ? null : schema.items ?? null };
      if (Array.isArray(schema.items)) return { kind: "tuple", items: schema.items, rest: schema.additionalItems === false ? null : schema.additionalItems ?? null };
      return { kind: "array", items: schema.items ?? {} };
    case "object": {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const extra = schema.additionalProperties;
      const extraSchema = extra === undefined || extra === false ? null : extra === true ? {} : extra;
      // `properties: {}` declares no fields (a tool without arguments); no `properties` at all is a map.
      if (schema.properties === undefined) {
        const patterns: Schema[] = Object.values(schema.patternProperties ?? {});
        if (extra === false && patterns.length === 0) return { kind: "object", properties, required: new Set(), extra: null };
        // Keys matching a pattern: the pattern's values (ajv checks the key against it).
        return { kind: "map", values: patterns.length === 1 ? patterns[0] : extraSchema ?? {} };
      }
      // Declared fields get controls; undeclared extras (allowed by default) are not offered, except
      // an explicit additionalProperties schema, which gets key/value rows under the fields.
      return { kind: "object", properties, required: new Set(schema.required ?? []), extra: extra !== undefined && extra !== false && extra !== true ? extraSchema : null };
    }
    case "null":
      return { kind: "choice", options: [{ value: null, label: "null" }] };
    case undefined:
      if (schema.not || schema["x-nt-json"]) return { kind: "json", reason: schema.not ? "a schema that allows no value" : "a list or object where any JSON value is allowed" };
      return { kind: "variants", anyValue: true, variants: ANY_VALUE };
    default:
      return { kind: "json", reason: `unknown type ${JSON.stringify(type)}` };
  }
}

function inferType(schema: Schema): string | undefined {
  if (schema.properties || schema.additionalProperties !== undefined || schema.required) return "object";
  if (schema.items || schema.prefixItems) return "array";
  if (schema.minLength !== undefined || schema.maxLength !== undefined || schema.pattern || schema.format) return "string";
  if (schema.minimum !== undefined || schema.maximum !== undefined) return "number";
  if (schema.default !== undefined && schema.default !== null) {
    const d = schema.default;
    if (typeof d === "string") return "string";
    if (typeof d === "boolean") return "boolean";
    if (typeof d === "number") return Number.isInteger(d) ? "integer" : "number";
  }
  return undefined;
}

function stringInput(schema: Schema): "text" | "date" | "datetime-local" | "email" | "url" | "textarea" {
  switch (schema.format) {
    case "date":
      return "date";
    case "date-time":
      return "datetime-local";
    case "email":
      return "email";
    case "uri":
    case "url":
    case "iri":
      return "url";
  }
  if (schema.maxLength === undefined || schema.maxLength > 200) {
    if (schema.contentMediaType || schema["x-multiline"] || /multi-?line|contents? of the file|\bbody\b/i.test(String(schema.description ?? ""))) return "textarea";
  }
  return "text";
}

function variantLabel(branch: Schema, index: number, root: Schema): string {
  if (branch.title) return String(branch.title);
  // A discriminator: a property whose schema is a single const.
  for (const [key, prop] of Object.entries<Schema>(branch.properties ?? {})) {
    const p = deref(prop, root);
    if ("const" in p) return `${key}: ${show(p.const)}`;
    if (Array.isArray(p.enum) && p.enum.length === 1) return `${key}: ${show(p.enum[0])}`;
  }
  if (typeof branch.type === "string") {
    if (branch.type === "array" && branch.items) return `list of ${deref(branch.items, root).title ?? deref(branch.items, root).type ?? "items"}`;
    if (branch.format) return `${branch.type} (${branch.format})`;
    return branch.type;
  }
  if (branch.properties) return Object.keys(branch.properties).slice(0, 3).join(", ") || `option ${index + 1}`;
  return `option ${index + 1}`;
}

function mergeBase(base: Schema, branch: Schema): Schema {
  const { oneOf, anyOf, [BRANCHES]: _positions, ...own } = base;
  return {
    ...own,
    ...branch,
    type: branch.type ?? own.type,
    properties: { ...(own.properties ?? {}), ...(branch.properties ?? {}) },
    required: [...(own.required ?? []), ...(branch.required ?? [])],
  };
}

/** allOf of object schemas: their properties and required lists together; null when they conflict. */
function mergeAll(schema: Schema, root: Schema): Schema | null {
  const { allOf, ...own } = schema;
  const parts = [own, ...allOf.map((s: Schema) => deref(s, root))];
  const out: Schema = { type: "object", properties: {}, required: [] };
  for (const part of parts) {
    if (part.type !== undefined && part.type !== "object") return null;
    if (part.anyOf || part.oneOf || part.allOf) return null;
    for (const [k, v] of Object.entries(part)) {
      if (k === "properties") Object.assign(out.properties, v);
      else if (k === "required") out.required.push(...(v as string[]));
      else if (k !== "type") out[k] = v;
    }
  }
  return out;
}

/** The choices of an array that is a closed set of strings, each picked at most once: `uniqueItems`
 * over items that are an enum (or a oneOf/anyOf of consts with titles). Such a field is a group of
 * checkboxes (./checks); null for any other node. */
export function closedSet(node: Node, root: Schema): Array<{ value: string; label: string }> | null {
  if (node.kind.kind !== "array" || node.schema.uniqueItems !== true) return null;
  const items = classify(node.kind.items, root);
  if (items.nullable || items.kind.kind !== "choice") return null;
  const options = items.kind.options;
  if (options.length === 0 || !options.every((o) => typeof o.value === "string")) return null;
  if (new Set(options.map((o) => o.value)).size !== options.length) return null;
  return options as Array<{ value: string; label: string }>;
}

/** Whether checkboxes over `options` show `value` whole: no value, or distinct strings among them.
 * Anything else (a value the schema refuses) stays in the list editor, where nothing is dropped. */
export function checkable(value: unknown, options: Array<{ value: string }>): boolean {
  if (value === undefined || value === null) return true;
  if (!Array.isArray(value)) return false;
  const allowed = new Set(options.map((o) => o.value));
  return value.every((v) => typeof v === "string" && allowed.has(v)) && new Set(value).size === value.length;
}

export function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Whether `value` plausibly fits `schema` (for picking the variant an existing value belongs to). */
export function fits(value: unknown, raw: Schema | boolean | undefined, root: Schema): boolean {
  if (raw === true || raw === undefined) return true;
  if (raw === false) return false;
  const { schema, nullable } = normalise(raw, root);
  if (value === null) return nullable || schema.type === "null";
  if ("const" in schema) return JSON.stringify(schema.const) === JSON.stringify(value);
  if (Array.isArray(schema.enum)) return schema.enum.some((v: unknown) => JSON.stringify(v) === JSON.stringify(value));
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) return union.some((b: Schema) => fits(value, b, root));
  const type = schema.type ?? inferType(schema);
  const types: string[] = Array.isArray(type) ? type : type ? [type] : [];
  if (types.length === 0) return true;
  return types.some((t) => {
    switch (t) {
      case "string":
        return typeof value === "string";
      case "integer":
        return Number.isInteger(value);
      case "number":
        return typeof value === "number";
      case "boolean":
        return typeof value === "boolean";
      case "array":
        return Array.isArray(value);
      case "null":
        return value === null;
      case "object": {
        if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
        const obj = value as Record<string, unknown>;
        const props: Record<string, Schema> = schema.properties ?? {};
        const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k); // not "constructor" of every object
        if ((schema.required ?? []).some((k: string) => !has(obj, k))) return false;
        if (schema.additionalProperties === false && Object.keys(obj).some((k) => !has(props, k))) return false;
        return Object.entries(props).every(([k, p]) => {
          if (!has(obj, k)) return true;
          const d = deref(p, root);
          return !("const" in d) || JSON.stringify(d.const) === JSON.stringify(obj[k]);
        });
      }
      default:
        return true;
    }
  });
}
