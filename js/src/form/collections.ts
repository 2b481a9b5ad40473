// Lists (arrays and tuples) and maps (additionalProperties) of the form engine: rows that a person
// adds and removes, each a field of its own whose JSON pointer follows its current position or key.
// Each item is built by the `field` the caller hands in (controls.ts), so this module does not import it.
import { h } from "../dom/dom";
import { nextId, readField, type Control, type Entry, type FieldBuilder, type Scope, type Where } from "./contract";
import type { Node, Schema } from "./schema";
import { has, put, UNSET } from "./values";

export function list(field: FieldBuilder, node: Node, where: Where, scope: Scope, value: unknown): Control {
  const { schema, kind } = node;
  const tuple = kind.kind === "tuple" ? kind.items : null;
  const itemSchema = kind.kind === "array" ? kind.items : kind.kind === "tuple" ? kind.rest : null;
  const min = typeof schema.minItems === "number" ? schema.minItems : tuple ? tuple.length : 0;
  const max = typeof schema.maxItems === "number" ? schema.maxItems : tuple && !itemSchema ? tuple.length : Infinity;
  const grid = h("div", { class: "nt-form-grid nt-form-nested nt-form-list" });
  const add = h("button", { class: "nt-btn nt-add", type: "button", "aria-label": `Add an item to ${where.label}` }, "+ Add item");
  // With no items, an optional list is either "not set" (left out: the tool's default applies) or an
  // empty list (sent as []): the line says which, and its button turns one into the other.
  const stateText = h("span", { class: "nt-list-state-text" });
  const stateButton = h("button", { class: "nt-btn nt-link nt-list-toggle", type: "button" });
  const state = h("div", { class: "nt-list-state nt-form-help", "aria-live": "polite" }, stateText, " ", stateButton);
  const el = h("div", { class: "nt-form-array" }, grid, state, add);
  const items: Array<{ control: Control; entry: Entry; row: HTMLElement }> = [];
  let touched = false;
  let chosen: boolean | null = null; // the person's own "not set" / "empty list", until they add an item
  const start = Array.isArray(value) ? value : [];
  const present = () => chosen ?? (touched || where.required || Array.isArray(value));
  const refresh = () => {
    state.hidden = items.length > 0;
    stateText.textContent = present() ? "Empty list: [] is sent." : "Not set: the tool's default applies.";
    stateButton.textContent = present() ? "Leave unset" : "Use an empty list";
    stateButton.hidden = where.required;
    add.hidden = items.length >= max || (tuple !== null && !itemSchema && items.length >= tuple.length);
    items.forEach((item, i) => {
      const label = item.row.querySelector(".nt-form-label")!;
      label.firstChild!.textContent = `${i + 1}`;
      const remove = item.row.querySelector<HTMLButtonElement>(".nt-remove");
      if (remove) remove.disabled = items.length <= min || (tuple !== null && i < tuple.length);
    });
  };
  const append = (v: unknown) => {
    const n = nextId();
    const i = items.length;
    const schemaAt = tuple && i < tuple.length ? tuple[i] : itemSchema ?? {};
    const remove = h("button", { class: "nt-btn nt-remove", type: "button" }, "×");
    const self: { control: Control; entry: Entry; row: HTMLElement } = {} as any;
    items.push(self); // before field(), so its path knows its index
    const made = field(schemaAt, {
      id: `${where.id}-${n}`,
      label: `${i + 1}`,
      path: () => [...where.path(), items.indexOf(self)],
      required: true,
      item: true,
      value: v,
    }, scope, { remove });
    Object.assign(self, made);
    remove.setAttribute("aria-label", `Remove item from ${where.label}`);
    remove.addEventListener("click", () => {
      const at = items.indexOf(self);
      if (at < 0) return;
      items.splice(at, 1);
      self.row.remove();
      scope.entries.splice(scope.entries.indexOf(self.entry), 1);
      touched = true;
      refresh();
      (items[Math.min(at, items.length - 1)]?.control.focus ?? add).focus();
      scope.changed();
    });
    grid.append(self.row);
  };
  start.forEach((v) => append(v));
  while (items.length < min) append(undefined);
  stateButton.addEventListener("click", () => {
    chosen = !present();
    refresh();
    scope.changed();
  });
  add.addEventListener("click", () => {
    touched = true;
    chosen = null;
    append(undefined);
    refresh();
    items[items.length - 1].control.focus?.focus();
    scope.changed();
  });
  refresh();
  return {
    el,
    focus: items[0]?.control.focus ?? add,
    read: (problems) => {
      if (items.length === 0 && !present()) return UNSET;
      return items.map((item) => {
        const v = readField(item.control, item.entry, problems);
        return v === UNSET ? null : v;
      });
    },
  };
}

export function map(field: FieldBuilder, values: Schema, where: Where, scope: Scope, value: unknown, declared: Record<string, Schema> | null): Control {
  const grid = h("div", { class: "nt-form-grid nt-form-nested nt-form-map" });
  const add = h("button", { class: "nt-btn nt-add", type: "button", "aria-label": `Add an entry to ${where.label}` }, "+ Add entry");
  const el = h("div", { class: "nt-form-map-wrap" }, grid, add);
  const rows: Array<{ key: HTMLInputElement; control: Control; entry: Entry; row: HTMLElement }> = [];
  let touched = false;
  const given = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  const append = (k: string, v: unknown) => {
    const n = nextId();
    const key = h("input", { class: "nt-input nt-map-key", type: "text", id: `${where.id}-${n}-key`, placeholder: "key", "aria-label": `Key in ${where.label}` });
    key.value = k;
    const remove = h("button", { class: "nt-btn nt-remove", type: "button", "aria-label": `Remove entry from ${where.label}` }, "×");
    const self: { key: HTMLInputElement; control: Control; entry: Entry; row: HTMLElement } = { key } as any;
    const made = field(values, { id: `${where.id}-${n}`, label: "value", path: () => [...where.path(), self.key.value], required: true, item: true, value: v }, scope, { remove });
    Object.assign(self, made);
    // The key input takes the label's column.
    made.row.querySelector(".nt-form-label")!.replaceWith(key);
    made.control.focus?.setAttribute("aria-label", `Value in ${where.label}`);
    remove.addEventListener("click", () => {
      rows.splice(rows.indexOf(self), 1);
      self.row.remove();
      scope.entries.splice(scope.entries.indexOf(self.entry), 1);
      touched = true;
      add.focus();
      scope.changed();
    });
    rows.push(self);
    grid.append(self.row);
  };
  for (const [k, v] of Object.entries(given ?? {})) append(k, v);
  add.addEventListener("click", () => {
    touched = true;
    append("", undefined);
    rows[rows.length - 1].key.focus();
    scope.changed();
  });
  const present = () => touched || where.required || given !== null;
  return {
    el,
    focus: rows[0]?.key ?? add,
    read: (problems) => {
      if (rows.length === 0 && !present()) return UNSET;
      const out: Record<string, unknown> = {};
      for (const row of rows) {
        const k = row.key.value;
        const v = readField(row.control, row.entry, problems);
        if (k === "") problems.set(row.entry, "Enter a key for this entry");
        // Own keys only ("constructor" is a key like any other); put() keeps "__proto__" a key.
        else if (has(out, k) || (declared && has(declared, k))) problems.set(row.entry, `The key "${k}" is used twice: use another`);
        else if (v !== UNSET) put(out, k, v);
      }
      return out;
    },
  };
}
