// A form generated from a tool's JSON input schema (approval edits, tools run by hand).
//
// Labels and fields sit in a two-column grid that scrolls inside its card, so a 50-argument tool
// stays a few hundred pixels tall with its buttons in view; past FILTER_FIELDS fields a filter box
// finds one by name. A field that fails validation says why under itself, and is checked again as
// it is edited, so the message goes as soon as the value is right.
import { h } from "./dom";
import { setText } from "./sanitize";
import { coerceArg, filterOptions } from "./logic";

type Schema = { properties?: Record<string, any>; required?: string[] };

/** Forms with more fields than this get a filter box. */
export const FILTER_FIELDS = 12;

export interface SchemaForm {
  el: HTMLElement;
  /** The arguments entered, coerced to the schema's types; throws with a readable message when one is invalid
   * (and marks every invalid field). */
  values: () => Record<string, unknown>;
  /** Keep the caller's error line for `values()`' message current: once it shows one, every edit
   * checks the form again, and a valid form clears it. */
  watch: (problem: HTMLElement) => void;
}

interface Field {
  name: string;
  row: HTMLElement;
  control: HTMLElement;
  message: HTMLElement;
  read: () => unknown;
}

function problemOf(field: Field): string | null {
  try {
    field.read();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function mark(field: Field, problem: string | null): void {
  setText(field.message, problem ?? "");
  field.row.classList.toggle("nt-invalid", problem !== null);
  if (problem === null) field.control.removeAttribute("aria-invalid");
  else field.control.setAttribute("aria-invalid", "true");
}

/** The message `values()` throws: the first invalid field, and how many more there are. */
function summary(fields: Field[]): { message: string; first: Field } | null {
  const bad = fields.map((f) => [f, problemOf(f)] as const).filter(([, p]) => p !== null);
  if (bad.length === 0) return null;
  const [first, problem] = bad[0];
  const more = bad.length > 1 ? ` (and ${bad.length - 1} more field${bad.length > 2 ? "s" : ""} to fix)` : "";
  return { message: `${first.name}: ${problem}${more}`, first };
}

export function schemaForm(schema: Schema | null | undefined, initial: Record<string, unknown>, idPrefix: string): SchemaForm {
  const grid = h("div", { class: "nt-form-grid" });
  const el = h("div", { class: "nt-form" });
  const fields: Field[] = [];
  const watchers: HTMLElement[] = [];
  const required = new Set(schema?.required ?? []);
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const id = `${idPrefix}-${name}`;
    const label = h("label", { for: id, class: "nt-form-label" }, name + (required.has(name) ? " *" : ""));
    const value = name in initial ? initial[name] : prop.default;
    let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    let read: () => unknown;
    if (Array.isArray(prop.enum)) {
      const select = h("select", { id, class: "nt-input" });
      for (const option of prop.enum) select.append(h("option", { value: String(option) }, String(option)));
      select.value = value === undefined ? "" : String(value);
      control = select;
      read = () => coerceArg(select.value, prop);
    } else if (prop.type === "boolean") {
      const box = h("input", { id, type: "checkbox" });
      box.checked = Boolean(value);
      control = box;
      read = () => box.checked;
    } else if (prop.type === "string" || prop.type === "integer" || prop.type === "number") {
      const input = h("input", { id, class: "nt-input", type: prop.type === "string" ? "text" : "number" });
      input.value = value === undefined || value === null ? "" : String(value);
      control = input;
      read = () => (input.value === "" && !required.has(name) ? undefined : coerceArg(input.value, prop));
    } else {
      const area = h("textarea", { id, class: "nt-input", rows: "2" });
      area.value = value === undefined ? "" : JSON.stringify(value);
      control = area;
      read = () => (area.value === "" && !required.has(name) ? undefined : coerceArg(area.value, prop));
    }
    if (prop.description) control.setAttribute("aria-description", String(prop.description));
    const message = h("div", { class: "nt-field-error", id: `${id}-error`, "aria-live": "polite" });
    control.setAttribute("aria-errormessage", `${id}-error`);
    const row = h("div", { class: "nt-form-row" }, label, control,
      prop.description ? h("span", { class: "nt-form-help" }, String(prop.description)) : null, message);
    const field: Field = { name, row, control, message, read };
    // Checked again on every edit once it was found invalid ("Approve" or "Run" marks it).
    control.addEventListener("input", () => {
      if (row.classList.contains("nt-invalid")) mark(field, problemOf(field));
    });
    fields.push(field);
    grid.append(row);
  }

  if (fields.length > FILTER_FIELDS) {
    const none = h("div", { class: "nt-form-help", hidden: true }, "No argument has that name.");
    const filter = h("input", { class: "nt-input nt-form-filter", type: "search", placeholder: `Filter ${fields.length} arguments by name`, "aria-label": "Filter arguments by name" });
    filter.addEventListener("input", () => {
      const shown = new Set(filterOptions(fields.map((f) => f.name), filter.value));
      for (const field of fields) field.row.hidden = !shown.has(field.name);
      none.hidden = shown.size > 0;
    });
    el.append(filter, none);
  }
  el.append(grid);

  el.addEventListener("input", () => {
    const active = watchers.filter((w) => w.textContent);
    if (active.length === 0) return;
    const found = summary(fields);
    for (const w of active) setText(w, found?.message ?? "");
  });

  return {
    el,
    values: () => {
      const found = summary(fields);
      if (found) {
        for (const field of fields) mark(field, problemOf(field));
        found.first.row.hidden = false;
        found.first.control.scrollIntoView?.({ block: "nearest" });
        found.first.control.focus();
        throw new Error(found.message);
      }
      const out: Record<string, unknown> = {};
      for (const field of fields) {
        const v = field.read();
        if (v !== undefined) out[field.name] = v;
      }
      return out;
    },
    watch: (problem) => void watchers.push(problem),
  };
}
