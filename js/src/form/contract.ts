// The contract between the form engine's controls: what a field registers with its form (Entry, Choice),
// what the form holds while it is built (Scope), what a control gives back (Control), where a field sits
// (Where), and the one function that builds a field (FieldBuilder). controls.ts builds fields; lists and
// maps (collections.ts) are handed that builder, so neither module imports the other.
import type { Schema } from "./schema";
import { Problem, UNSET, type Read } from "./values";

export interface Entry {
  /** JSON pointer parts of this field's value, computed now (array items move). */
  path: () => Array<string | number>;
  row: HTMLElement;
  focus: HTMLElement | null;
  message: HTMLElement;
  /** Errors show once the field was edited and left, or the form was submitted. */
  shown: boolean;
  /** A field of several inputs (a group of checkboxes): "left" is focus leaving the group. */
  group?: HTMLElement;
}

export interface Scope {
  root: Schema;
  entries: Entry[];
  fallbacks: Array<{ path: string; reason: string }>;
  controls: number;
  /** Fields of any JSON value (a type chooser whose last choice is raw JSON). */
  anyValues: number;
  /** Something changed that is not an input event (item added or removed, variant chosen). */
  changed: () => void;
  /** The variant chosen at each oneOf/anyOf field, so errors of the other branches are dropped. */
  choices: Choice[];
}

export interface Choice {
  el: HTMLElement;
  path: () => Array<string | number>;
  /** "oneOf" or "anyOf", and the index in the schema's own list of the branch chosen now. */
  keyword: string;
  branch: () => number | undefined;
}

export interface Control {
  el: HTMLElement;
  /** The first element a person types into. */
  focus: HTMLElement | null;
  /** Throws Problem (recorded by the caller per entry) when the text cannot be the JSON type. */
  read: (problems: Map<Entry, string>) => Read;
  /** Count the control as edited (its null toggle was turned off: the person means to give it). */
  touch?: () => void;
  /** `el` is a fieldset of several inputs named by its own legend (./checks): the row's label
   * points at none of them. */
  group?: boolean;
}

export interface Where {
  id: string;
  label: string;
  path: () => Array<string | number>;
  required: boolean;
  /** The value to show; undefined means "not given" (defaults apply). */
  value: unknown;
  /** A list item or map value: required to read, but not marked (it is there because it was added). */
  item?: boolean;
}

/** A field as built: its grid row, its control, and its entry in the scope. */
export interface Made {
  row: HTMLElement;
  control: Control;
  entry: Entry;
}

/** Builds one labelled field for `raw` (controls.ts `field`); `extra.remove` sits beside the control. */
export type FieldBuilder = (raw: Schema | boolean | undefined, where: Where, scope: Scope, extra?: { remove?: HTMLElement }) => Made;

/** Read a child field, recording its Problem against its entry instead of throwing. */
export function readField(control: Control, entry: Entry, problems: Map<Entry, string>): Read {
  try {
    return control.read(problems);
  } catch (err) {
    if (!(err instanceof Problem)) throw err;
    problems.set(entry, err.message);
    return UNSET;
  }
}

let serial = 0;
/** A number for ids unique in the page (list items and map entries come and go). */
export function nextId(): number {
  return serial++;
}
