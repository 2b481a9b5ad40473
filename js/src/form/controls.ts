// The DOM controls of the form engine, one per schema node, built recursively.
//
// Every field is a row (label, control, help, error line) registered with the form, so an error
// ajv reports at a JSON pointer lands under the field it is about. Reading a control gives exact
// JSON: numbers as numbers, [] as [], nested objects whole; UNSET leaves a key out.
import { h } from "../dom/dom";
import { plain } from "../text/sanitize";
import { checkable, classify, closedSet, fits, show, type Node, type Schema } from "./schema";
import { dateTimeFromLocal, has, localFromDateTime, own, put, readJson, readNumber, readString, same, UNSET } from "./values";
import { nextId, readField, type Control, type Entry, type Made, type Scope, type Where } from "./contract";
import { list, map } from "./collections";
import { checks } from "./checks";

/** One labelled field: a row of the grid holding the control for `raw`. Lists and maps (collections.ts)
 * are handed this function to build their items, so they need not import this module. */
export function field(raw: Schema | boolean | undefined, where: Where, scope: Scope, extra: { remove?: HTMLElement } = {}): Made {
  let node = classify(raw, scope.root);
  // A schema that requires itself ($ref cycles) would build forever: deep enough is JSON.
  if (where.path().length > MAX_DEPTH && ["object", "array", "tuple", "map", "variants"].includes(node.kind.kind)) {
    node = { ...node, kind: { kind: "json", reason: `nested more than ${MAX_DEPTH} levels deep` } };
  }
  const description = typeof node.schema.description === "string" ? node.schema.description : "";
  const hasDefault = node.schema.default !== undefined;
  const helpText = [description, hasDefault ? `Default: ${show(node.schema.default)}` : ""].filter(Boolean).join(" · ");
  const help = helpText ? h("div", { class: "nt-form-help", id: `${where.id}-help` }, helpText) : null;
  const message = h("div", { class: "nt-field-error", id: `${where.id}-error`, "aria-live": "polite" });
  const label = h("label", { class: "nt-form-label", id: `${where.id}-label` }, where.label);
  if (where.required && !where.item) label.append(h("span", { class: "nt-required", "aria-hidden": "true" }, " *"));
  const control = build(node, where, scope);
  const describedBy = [help ? help.id : "", message.id].filter(Boolean).join(" ");
  if (control.group) {
    // A fieldset: its legend names it, and what it says of itself (its min/max) comes first.
    control.el.setAttribute("aria-describedby", [control.el.getAttribute("aria-describedby"), describedBy].filter(Boolean).join(" "));
  } else if (control.focus && (control.focus === control.el || control.el.contains(control.focus))) {
    if (control.focus.id) label.setAttribute("for", control.focus.id);
    control.focus.setAttribute("aria-describedby", describedBy);
    control.focus.setAttribute("aria-errormessage", message.id);
    if (where.required && !where.item) control.focus.setAttribute("aria-required", "true");
  }
  if (!control.group && !control.el.matches("input, select, textarea")) {
    control.el.setAttribute("role", "group");
    control.el.setAttribute("aria-labelledby", label.id);
    control.el.setAttribute("aria-describedby", describedBy);
  }
  const cell = extra.remove ? h("div", { class: "nt-form-item" }, control.el, extra.remove) : control.el;
  const row = h("div", { class: "nt-form-row" }, label, cell, help, message);
  const entry: Entry = { path: where.path, row, focus: control.focus, message, shown: false, group: control.group ? control.el : undefined };
  scope.entries.push(entry);
  return { row, control, entry };
}

const MAX_DEPTH = 12;

function build(node: Node, where: Where, scope: Scope): Control {
  scope.controls += 1;
  const inner = buildKind(node, where, scope);
  if (!node.nullable || node.kind.kind === "choice" && node.kind.options.some((o) => o.value === null)) return inner;
  // Nullable: a "null" toggle beside the control; while on, the control is hidden and the value is null.
  const isNull = where.value === null || (where.value === undefined && (node.schema.default === null || (node.schema.default === undefined && !where.required)));
  const toggle = h("input", { type: "checkbox", id: `${where.id}-null`, class: "nt-null-toggle" });
  toggle.checked = isNull;
  const holder = h("div", { class: "nt-form-value" }, inner.el);
  holder.hidden = isNull;
  toggle.addEventListener("change", () => {
    holder.hidden = toggle.checked;
    if (!toggle.checked) inner.touch?.();
    scope.changed();
  });
  const el = h("div", { class: "nt-nullable" }, h("label", { class: "nt-null-label" }, toggle, " null"), holder);
  return {
    el,
    focus: inner.focus ?? toggle,
    read: (problems) => (toggle.checked ? null : inner.read(problems)),
  };
}

function initial(where: Where, schema: Schema): unknown {
  return where.value !== undefined ? where.value : schema.default;
}

function buildKind(node: Node, where: Where, scope: Scope): Control {
  const { schema, kind } = node;
  const value = initial(where, schema);
  const readOnly = schema.readOnly === true;
  switch (kind.kind) {
    case "string": {
      const input = kind.input === "textarea"
        ? h("textarea", { id: where.id, class: "nt-input", rows: "3" })
        : h("input", { id: where.id, class: "nt-input", type: kind.input });
      if (typeof schema.maxLength === "number") input.setAttribute("maxlength", String(schema.maxLength));
      if (typeof schema.minLength === "number") input.setAttribute("minlength", String(schema.minLength));
      if (kind.input === "datetime-local") input.setAttribute("step", "1");
      input.value = kind.input === "datetime-local" ? localFromDateTime(value) : typeof value === "string" ? value : value === undefined || value === null ? "" : show(value);
      input.readOnly = readOnly;
      return {
        el: input,
        focus: input,
        // Emptied, a field that had a value (given or default) sends ""; one that never had one stays out.
        read: () => readString(kind.input === "datetime-local" ? dateTimeFromLocal(input.value) : input.value, where.required || typeof value === "string"),
      };
    }
    case "integer":
    case "number": {
      const input = h("input", { id: where.id, class: "nt-input", type: "number", step: kind.kind === "integer" ? "1" : "any" });
      if (typeof schema.minimum === "number") input.setAttribute("min", String(schema.minimum));
      if (typeof schema.maximum === "number") input.setAttribute("max", String(schema.maximum));
      input.value = typeof value === "number" ? String(value) : "";
      input.readOnly = readOnly;
      // Text the browser cannot read as a number ("1,5") shows as "" with validity.badInput: a problem, not "unset".
      return { el: input, focus: input, read: () => readNumber(input.value, kind.kind === "integer", where.required, input.validity?.badInput === true) };
    }
    case "boolean": {
      // Optional, with no value and no default: "not set" (left out, the tool decides) is a state of
      // its own, shown as such; an unticked box would look like false and send nothing.
      if (!where.required && value === undefined) {
        const select = h("select", { id: where.id, class: "nt-input nt-tristate" },
          h("option", { value: "" }, "not set"), h("option", { value: "true" }, "true"), h("option", { value: "false" }, "false"));
        select.disabled = readOnly;
        return { el: select, focus: select, read: () => (select.value === "" ? UNSET : select.value === "true") };
      }
      const box = h("input", { id: where.id, type: "checkbox" });
      box.checked = value === true;
      box.disabled = readOnly;
      return { el: box, focus: box, read: () => box.checked };
    }
    case "choice": {
      const select = h("select", { id: where.id, class: "nt-input" });
      const index = kind.options.findIndex((o) => same(o.value, value));
      if (index < 0 && !(kind.options.length === 1 && where.required)) {
        select.append(h("option", { value: "" }, where.required ? "Choose…" : "(not set)"));
      }
      kind.options.forEach((o, i) => select.append(h("option", { value: String(i) }, o.label)));
      select.value = index >= 0 ? String(index) : kind.options.length === 1 && where.required ? "0" : "";
      // A single allowed value (a discriminator's const) is shown, fixed.
      select.disabled = readOnly || (kind.options.length === 1 && select.value === "0");
      return { el: select, focus: select, read: () => (select.value === "" ? UNSET : kind.options[Number(select.value)].value) };
    }
    case "array": {
      // A closed set of strings, each once: checkboxes, unless the value is one they cannot show.
      const choices = closedSet(node, scope.root);
      if (choices && checkable(value, choices)) return checks(node, choices, where, value);
      return list(field, node, where, scope, value);
    }
    case "tuple":
      return list(field, node, where, scope, value);
    case "object":
      return object(node, where, scope, value);
    case "map":
      return map(field, kind.values, where, scope, value, null);
    case "variants":
      return variants(node, where, scope, value);
    case "json": {
      scope.fallbacks.push({ path: where.path().join("/") || "(root)", reason: kind.reason });
      const area = h("textarea", { id: where.id, class: "nt-input nt-json", rows: "2", spellcheck: "false", placeholder: "JSON" });
      area.value = value === undefined ? "" : JSON.stringify(value, null, 1);
      area.readOnly = readOnly;
      return { el: area, focus: area, read: () => readJson(area.value, where.required) };
    }
  }
}

function object(node: Node, where: Where, scope: Scope, value: unknown): Control {
  const kind = node.kind as Extract<Node["kind"], { kind: "object" }>;
  const given = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const grid = h("div", { class: "nt-form-grid nt-form-nested" });
  const el = h("div", { class: "nt-form-object" }, grid);
  const children = Object.entries(kind.properties).map(([key, prop]) => {
    const made = field(prop, {
      id: `${where.id}-${safe(key)}`,
      label: key,
      path: () => [...where.path(), key],
      required: kind.required.has(key),
      value: own(given, key),
    }, scope);
    grid.append(made.row);
    return { key, ...made, given: has(given, key) };
  });
  const rest = kind.extra ? map(field, kind.extra, { ...where, id: `${where.id}-extra` }, scope, omit(given, Object.keys(kind.properties)), kind.properties) : null;
  if (rest) el.append(h("div", { class: "nt-form-help" }, "More fields:"), rest.el);
  // Keys the value has and the schema does not declare are kept, in a JSON box: never dropped.
  const undeclared = rest ? undefined : omit(given, Object.keys(kind.properties));
  const other = undeclared
    ? field(true, { id: `${where.id}-other`, label: "(other fields)", path: where.path, required: false, value: undeclared }, scope)
    : null;
  if (other) grid.append(other.row);
  const present = value !== undefined || where.required;
  // An optional object that was not given is left out until one of its fields is edited: its
  // required fields ask for a value only once the person means to send it.
  const { edited, touch } = touched(el);
  let asked = false; // "null" turned off: the person asks for the object, {} if nothing is filled
  return {
    el,
    focus: children[0]?.control.focus ?? rest?.focus ?? null,
    touch: () => {
      asked = true;
      touch();
    },
    read: (problems) => {
      if (!present && !asked && !edited()) return UNSET;
      const out: Record<string, unknown> = {};
      for (const child of children) {
        const v = readField(child.control, child.entry, problems);
        if (v === UNSET) continue;
        // A nullable field left at null that the call did not have stays out, as it came.
        if (v === null && !child.given && !kind.required.has(child.key) && isNullDefault(kind.properties[child.key], scope)) continue;
        put(out, child.key, v);
      }
      if (rest) {
        const more = rest.read(problems);
        if (more !== UNSET) merge(out, more);
      }
      if (other) {
        const more = readField(other.control, other.entry, problems);
        if (more && typeof more === "object" && !Array.isArray(more)) merge(out, more);
      }
      return Object.keys(out).length === 0 && !present && !asked ? UNSET : out;
    },
  };
}

/** Copy own keys ("__proto__" included, as a key) from `more` into `out`. */
export function merge(out: Record<string, unknown>, more: unknown): void {
  for (const [k, v] of Object.entries(more as Record<string, unknown>)) put(out, k, v);
}

/** Whether the person edited anything inside `el` (typed, picked, toggled, added or removed). */
export function touched(el: HTMLElement): { edited: () => boolean; touch: () => void } {
  let yes = false;
  const touch = () => void (yes = true);
  el.addEventListener("input", touch);
  el.addEventListener("change", touch);
  el.addEventListener("click", (event) => {
    if ((event.target as Element | null)?.closest?.("button")) touch();
  });
  return { edited: () => yes, touch };
}

function isNullDefault(raw: Schema, scope: Scope): boolean {
  const node = classify(raw, scope.root);
  return node.schema.default === null || node.schema.default === undefined;
}

function omit(obj: Record<string, unknown>, keys: string[]): Record<string, unknown> | undefined {
  const out = Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k))); // own keys only, __proto__ as a key
  return Object.keys(out).length ? out : undefined;
}

function variants(node: Node, where: Where, scope: Scope, value: unknown): Control {
  const kind = node.kind as Extract<Node["kind"], { kind: "variants" }>;
  if (kind.anyValue) scope.anyValues += 1;
  const select = h("select", { id: where.id, class: "nt-input nt-variant", "aria-label": `${where.label}: which kind` });
  kind.variants.forEach((v, i) => select.append(h("option", { value: String(i) }, v.label)));
  const holder = h("div", { class: "nt-variant-body" });
  const el = h("div", { class: "nt-form-variants" }, select, holder);
  let chosen = value === undefined ? 0 : Math.max(0, kind.variants.findIndex((v) => fits(value, v.schema, scope.root)));
  let current: { control: Control; entry: Entry } | null = null;
  const show = (v: unknown) => {
    if (current) scope.entries.splice(scope.entries.indexOf(current.entry), 1);
    const schema = kind.variants[chosen].schema;
    const made = field(schema, { id: `${where.id}-v${nextId()}`, label: kind.variants[chosen].label, path: where.path, required: true, value: v }, scope);
    // The chosen shape's fields sit under the chooser, without a second label.
    made.row.querySelector(".nt-form-label")!.classList.add("nt-variant-label");
    made.control.focus?.setAttribute("aria-label", `${where.label} (${kind.variants[chosen].label})`);
    holder.replaceChildren(made.row);
    current = made;
  };
  select.value = String(chosen);
  show(value);
  select.addEventListener("change", () => {
    chosen = Number(select.value);
    show(undefined);
    scope.changed();
  });
  if (kind.keyword) scope.choices.push({ el, path: where.path, keyword: kind.keyword, branch: () => kind.variants[chosen].branch });
  // Optional and not given: left out until the person picks a kind or enters a value.
  const { edited, touch } = touched(el);
  return {
    el,
    focus: select,
    touch,
    read: (problems) => {
      if (value === undefined && !where.required && !edited()) return UNSET;
      const v = readField(current!.control, current!.entry, problems);
      return v === UNSET && !where.required ? UNSET : v;
    },
  };
}

/** An id fragment from a property name. */
export function safe(name: string): string {
  return plain(name).replace(/[^A-Za-z0-9_-]/g, "_") || "_";
}
