// The browser's check of a form's value: ajv (draft 2020-12, the dialect the kernel's jsonschema
// Draft202012Validator applies) with ajv-formats, one compiled validator per schema. The kernel's
// check stays the authority; this one only says early, next to the field, what it would refuse.
import Ajv2020 from "ajv/dist/2020";
import type { ErrorObject, ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { Schema } from "./schema";

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
    ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, unicodeRegExp: false });
    addFormats(ajv);
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

/** Errors for `value`, each at the pointer of the field it is about. */
export function validate(schema: Schema, value: unknown): FieldError[] {
  const fn = validatorFor(schema);
  if (!fn || fn(value)) return [];
  return dedupe((fn.errors ?? []).filter(useful).map(toFieldError));
}

// anyOf/oneOf report every branch's complaint plus "must match a schema in anyOf"; keep the summary
// and the complaints of the branch that is closest (the same path as the field).
function useful(error: ErrorObject): boolean {
  return error.keyword !== "if";
}

function toFieldError(error: ErrorObject): FieldError {
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case "required":
      return { path: `${error.instancePath}/${escape(p.missingProperty)}`, message: "required" };
    case "additionalProperties":
      return { path: `${error.instancePath}/${escape(p.additionalProperty)}`, message: "not a field this tool takes" };
    case "enum":
      return { path: error.instancePath, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "const":
      return { path: error.instancePath, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case "format":
      return { path: error.instancePath, message: `must be a valid ${p.format}` };
    case "anyOf":
    case "oneOf":
      return { path: error.instancePath, message: "must match one of the allowed shapes" };
    default:
      return { path: error.instancePath, message: error.message ?? "is not valid" };
  }
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
