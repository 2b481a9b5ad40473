// The argument form of approval edits and tools run by hand: the form engine (./form/) over a
// tool's input schema, read back as the object of arguments.
import { buildForm, FILTER_FIELDS, type FormOptions } from "./form/form";

export { FILTER_FIELDS };

export interface SchemaForm {
  el: HTMLElement;
  /** The arguments entered, as exact JSON; throws with a readable message when one is invalid
   * (and marks every invalid field). */
  values: () => Record<string, unknown>;
  /** Keep the caller's error line for `values()`' message current: once it shows one, every edit
   * checks the form again, and a valid form clears it. */
  watch: (problem: HTMLElement) => void;
}

export function schemaForm(schema: Record<string, any> | null | undefined, initial: Record<string, unknown>, idPrefix: string, options: FormOptions = {}): SchemaForm {
  const form = buildForm(schema ?? { type: "object", properties: {} }, initial, idPrefix, options);
  return { el: form.el, values: () => form.values() as Record<string, unknown>, watch: form.watch };
}
