// The browser's check of a form's value: ajv (draft 2020-12, the dialect the kernel's jsonschema
// Draft202012Validator applies), one compiled validator per schema. The kernel's check stays the
// authority; this one only says early, next to the field, what it would refuse. The kernel's
// validator has no format checker, so "format" is not checked here either: the same rules on both
// sides (the form still picks an input type by format).
import Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv";
import type { Schema } from "./schema";
import { humanMessage } from "./messages";

export interface FieldError {
  /** JSON pointer of the value the error is about (a missing property's own pointer). */
  path: string;
  message: string;
}

let ajv: Ajv2020 | null = null;
// Keyed by the schema's JSON: a card drawn again gets a new schema object with the same text.
const compiled = new Map<string, ValidateFunction | null>();
const KEEP = 100;

function instance(): Ajv2020 {
  if (ajv === null) {
    // strict off: tool schemas carry keywords ajv does not know (x-*, discriminator, examples).
    ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, unicodeRegExp: false, ownProperties: true, verbose: true });
    // ownProperties: a key is there only if the value has it itself, as in Python ("constructor").
    // verbose: each error keeps the schema of its field, whose description words the message.
  }
  return ajv;
}

/** A validator for `schema`, compiled on first use; null when ajv cannot compile it (then only
 * the kernel checks). */
export function validatorFor(schema: Schema): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (compiled.has(key)) return compiled.get(key)!;
  let fn: ValidateFunction | null = null;
  // "$schema" names a meta-schema ajv may not have loaded; "$id" would clash between forms.
  const { $schema, $id, ...rest } = schema;
  try {
    fn = instance().compile(rest);
  } catch {
    // Not compilable here (an unknown dialect, or a page whose CSP forbids ajv's generated code):
    // the form still works and the kernel still checks.
    fn = null;
  } finally {
    instance().removeSchema(rest); // ajv keeps every schema it compiled; ours keeps what it needs
  }
  if (compiled.size >= KEEP) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, fn);
  return fn;
}

/** The branch chosen (its index in the schema's oneOf/anyOf) for the value at a JSON pointer;
 * undefined when no chooser is there. */
export type Chosen = (pointer: string, keyword: string) => number | undefined;

/** Errors for `value`, each at the pointer of the field it is about. */
export function validate(schema: Schema, value: unknown, chosen: Chosen = () => undefined): FieldError[] {
  const fn = validatorFor(schema);
  if (!fn || fn(value)) return [];
  return dedupe(useful(fn.errors ?? [], chosen).sort(byRank).map((error) => toFieldError(error, schema)));
}

// A field shows one message: the one that says most about what to enter comes first (stable sort).
const RANK: Record<string, number> = { required: 0, type: 1, const: 2, enum: 2, pattern: 3, format: 3, anyOf: 9, oneOf: 9 };
function byRank(a: ErrorObject, b: ErrorObject): number {
  return (RANK[a.keyword] ?? 5) - (RANK[b.keyword] ?? 5);
}

// A failed anyOf/oneOf reports every branch's complaints plus its own "must match a schema". Keep
// the summary and the complaints of the branch chosen at that field; with no chooser there (a
// select of constants, a raw JSON box) no branch is chosen, and the summary alone is kept.
function useful(errors: ErrorObject[], chosen: Chosen): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf");
  return errors.filter((error) => {
    if (error.keyword === "if") return false;
    for (const union of unions) {
      const prefix = `${union.schemaPath}/`;
      if (error === union || !error.schemaPath.startsWith(prefix)) continue;
      if (error.instancePath !== union.instancePath && !error.instancePath.startsWith(`${union.instancePath}/`)) continue;
      const branch = Number(error.schemaPath.slice(prefix.length).split("/")[0]);
      if (branch !== chosen(union.instancePath, union.keyword)) return false;
    }
    return true;
  });
}

// Each error at the pointer of the field it is about, in plain words (./messages).
function toFieldError(error: ErrorObject, root: Schema): FieldError {
  const p = error.params as Record<string, any>;
  const message = humanMessage(error, root);
  if (error.keyword === "required") return { path: `${error.instancePath}/${escape(p.missingProperty)}`, message };
  if (error.keyword === "additionalProperties") return { path: `${error.instancePath}/${escape(p.additionalProperty)}`, message };
  return { path: error.instancePath, message };
}

function escape(key: string): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\n${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function pointerOf(parts: Array<string | number>): string {
  return parts.map((p) => `/${escape(String(p))}`).join("");
}
