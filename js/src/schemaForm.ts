// A form generated from a tool's JSON input schema (approval edits, tools run by hand).
import { h } from "./dom";
import { coerceArg } from "./logic";

type Schema = { properties?: Record<string, any>; required?: string[] };

export interface SchemaForm {
  el: HTMLElement;
  /** The arguments entered, coerced to the schema's types; throws with a readable message when one is invalid. */
  values: () => Record<string, unknown>;
}

export function schemaForm(schema: Schema | null | undefined, initial: Record<string, unknown>, idPrefix: string): SchemaForm {
  const el = h("div", { class: "nt-form" });
  const readers: Array<[string, () => unknown]> = [];
  const required = new Set(schema?.required ?? []);
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const id = `${idPrefix}-${name}`;
    const label = h("label", { for: id, class: "nt-form-label" }, name + (required.has(name) ? " *" : ""));
    const value = name in initial ? initial[name] : prop.default;
    let field: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (Array.isArray(prop.enum)) {
      field = h("select", { id, class: "nt-input" });
      for (const option of prop.enum) field.append(h("option", { value: String(option) }, String(option)));
      field.value = value === undefined ? "" : String(value);
      readers.push([name, () => coerceArg(field.value, prop)]);
    } else if (prop.type === "boolean") {
      const box = h("input", { id, type: "checkbox" });
      box.checked = Boolean(value);
      field = box;
      readers.push([name, () => box.checked]);
    } else if (prop.type === "string" || prop.type === "integer" || prop.type === "number") {
      field = h("input", { id, class: "nt-input", type: prop.type === "string" ? "text" : "number" });
      field.value = value === undefined || value === null ? "" : String(value);
      readers.push([name, () => (field.value === "" && !required.has(name) ? undefined : coerceArg(field.value, prop))]);
    } else {
      field = h("textarea", { id, class: "nt-input", rows: "2" });
      field.value = value === undefined ? "" : JSON.stringify(value);
      readers.push([name, () => (field.value === "" && !required.has(name) ? undefined : coerceArg(field.value, prop))]);
    }
    if (prop.description) field.setAttribute("aria-description", String(prop.description));
    el.append(h("div", { class: "nt-form-row" }, label, field, prop.description ? h("span", { class: "nt-form-help" }, String(prop.description)) : null));
  }
  return {
    el,
    values: () => {
      const out: Record<string, unknown> = {};
      for (const [name, read] of readers) {
        try {
          const v = read();
          if (v !== undefined) out[name] = v;
        } catch (err) {
          throw new Error(`${name}: ${(err as Error).message}`);
        }
      }
      return out;
    },
  };
}
