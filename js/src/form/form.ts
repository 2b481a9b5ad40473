// The form engine: a JSON Schema → a form a person fills, read back as the exact JSON arguments.
//
// One engine for every place arguments are filled (approval edits, the Tools panel, custom frontend
// tools). Fields are checked as the person types, with ajv and the kernel's rules: a field's
// message shows once it was edited and left (or on submit), and then follows every keystroke.
// The kernel checks again; its word is final.
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { filterOptions } from "./filter";
import { field, safe } from "./controls";
import type { Control, Entry, Scope } from "./contract";
import { classify, type Schema } from "./schema";
import { pointerOf, validate } from "./validate";
import { has, own, put, same, UNSET } from "./values";
import "./form.css";

/** Forms with more top-level fields than this get a filter box. */
export const FILTER_FIELDS = 12;

export interface FormOptions {
  /** Enter in a field (not a multi-line box) calls this. */
  onSubmit?: () => void;
  /** Label of a root that is not an object (a frontend tool's answer). */
  rootLabel?: string;
}

export interface Form {
  el: HTMLElement;
  /** The value entered; throws with a readable message when a field is invalid (and marks them all). */
  values: () => unknown;
  /** Keep the caller's error line for `values()`' message current while it shows one. */
  watch: (problem: HTMLElement) => void;
  /** How many controls were built, and the raw-JSON fallbacks with their reasons. */
  report: () => { controls: number; anyValues: number; fallbacks: Array<{ path: string; reason: string }> };
  /** Every field back to the schema's defaults. */
  reset: () => void;
  /** The value and its problems ("path: message"), without marking anything (for tests and tools). */
  peek: () => { value: unknown; problems: string[] };
}

interface Built {
  control: Control | null;
  rows: Array<{ name: string; row: HTMLElement }>;
  read: (problems: Map<Entry, string>) => unknown;
  rootEntry: Entry;
}

export function buildForm(schema: Schema | null | undefined, initial: unknown, idPrefix: string, options: FormOptions = {}): Form {
  const root: Schema = schema && typeof schema === "object" ? schema : { type: "object", properties: {} };
  const el = h("div", { class: "nt-form" });
  const grid = h("div", { class: "nt-form-grid" });
  const formMessage = h("div", { class: "nt-field-error nt-form-message", id: `${idPrefix}-form-error`, "aria-live": "polite" });
  const watchers: HTMLElement[] = [];
  let scope: Scope;
  let built: Built;
  let submitted = false;

  const build = (value: unknown): Built => {
    scope = { root, entries: [], fallbacks: [], controls: 0, anyValues: 0, changed: () => check(), choices: [] };
    const rootEntry: Entry = { path: () => [], row: el, focus: null, message: formMessage, shown: true };
    const node = classify(root, root);
    if (node.kind.kind === "object" && !node.nullable) {
      const kind = node.kind;
      const given = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
      const fields = Object.entries(kind.properties).map(([name, prop]) => ({
        name,
        given: has(given, name),
        ...field(prop, { id: `${idPrefix}-${safe(name)}`, label: name, path: () => [name], required: kind.required.has(name), value: own(given, name) }, scope),
      }));
      // Keys of the value the schema does not declare are kept, in a JSON box: never dropped silently.
      const undeclared = Object.keys(given).filter((k) => !has(kind.properties, k));
      const extra = undeclared.length
        ? field(true, { id: `${idPrefix}-extra`, label: "(other fields)", path: () => [], required: false, value: Object.fromEntries(undeclared.map((k) => [k, given[k]])) }, scope)
        : null;
      return {
        control: null,
        rootEntry,
        rows: [...fields.map((f) => ({ name: f.name, row: f.row })), ...(extra ? [{ name: "(other fields)", row: extra.row }] : [])],
        read: (problems) => {
          const out: Record<string, unknown> = {};
          for (const f of fields) {
            const v = readInto(f.control, f.entry, problems);
            if (v === UNSET) continue;
            if (v === null && !f.given && !kind.required.has(f.name) && nullByDefault(kind.properties[f.name])) continue;
            put(out, f.name, v);
          }
          if (extra) {
            const more = readInto(extra.control, extra.entry, problems);
            if (more && typeof more === "object" && !Array.isArray(more)) for (const [k, x] of Object.entries(more)) put(out, k, x);
          }
          return out;
        },
      };
    }
    const label = options.rootLabel ?? "value";
    const one = field(root, { id: `${idPrefix}-value`, label, path: () => [], required: true, value }, scope);
    return { control: one.control, rootEntry, rows: [{ name: label, row: one.row }], read: (problems) => readInto(one.control, one.entry, problems) };
  };

  const nullByDefault = (prop: Schema): boolean => {
    const d = classify(prop, root).schema.default;
    return d === null || d === undefined;
  };

  /** Read the whole value and collect every problem, each on the field it belongs to. */
  const collect = (): { value: unknown; problems: Array<[Entry, string]> } => {
    const parse = new Map<Entry, string>();
    const value = built.read(parse);
    const live = scope.entries.filter((e) => el.contains(e.row));
    const found = new Map<Entry, string[]>();
    for (const [entry, message] of parse) found.set(entry, [message]);
    const v = value === UNSET ? {} : value;
    // The variant chosen at each live oneOf/anyOf field: the other branches' errors are not its.
    const choices = scope.choices.filter((c) => el.contains(c.el));
    const chosen = (pointer: string, keyword: string) => choices.find((c) => c.keyword === keyword && pointerOf(c.path()) === pointer)?.branch();
    for (const error of validate(root, v, chosen)) {
      const entry = owner(live, error.path) ?? built.rootEntry;
      if (parse.has(entry)) continue; // "not a whole number" says more than ajv's "required"
      const list = found.get(entry) ?? [];
      if (!list.includes(error.message)) list.push(error.message);
      found.set(entry, list);
    }
    const order = [...live, built.rootEntry];
    // One message per field, the first (most specific) one: fixing it shows the next, if any.
    const problems = order.filter((e) => found.has(e)).map((e) => [e, found.get(e)![0]] as [Entry, string]);
    return { value: v, problems };
  };

  const mark = (problems: Array<[Entry, string]>, all: boolean) => {
    const byEntry = new Map(problems);
    for (const entry of [...scope.entries, built.rootEntry]) {
      if (all) entry.shown = true;
      const problem = entry.shown ? byEntry.get(entry) ?? null : null;
      setText(entry.message, problem ?? "");
      entry.row.classList.toggle("nt-invalid", problem !== null && entry !== built.rootEntry);
      const invalid = entry.group ?? entry.focus; // a group's problem is the group's, not its first box's
      if (invalid) {
        if (problem === null) invalid.removeAttribute("aria-invalid");
        else invalid.setAttribute("aria-invalid", "true");
      }
    }
  };

  // "Reset to defaults" only where the schema has defaults and the form differs from them: the
  // value a form of nothing given reads (built and read once, before the real form).
  const hasDefaults = declaresDefault(root, root, 0);
  const defaults = hasDefaults ? readQuietly(build(undefined)) : UNSET;
  const resetButton = h("button", { class: "nt-btn nt-form-reset", type: "button", title: "Every field back to the tool's defaults" }, "Reset to defaults");
  const showReset = (value: unknown) => {
    resetButton.hidden = !hasDefaults || same(value, defaults);
  };

  // The caller's line names the fields to fix; what is wrong shows once, under each field.
  const summary = (problems: Array<[Entry, string]>): string | null => {
    if (problems.length === 0) return null;
    const n = problems.length - 1;
    const first = nameOf(problems[0][0].path()) || options.rootLabel || "the arguments";
    const more = n > 0 ? ` and ${n} more field${n > 1 ? "s" : ""}` : "";
    return `Fix ${first}${more} (marked in the form) before sending.`;
  };

  const check = () => {
    const { value, problems } = collect();
    mark(problems, false);
    showReset(value);
    const active = watchers.filter((w) => w.textContent);
    const message = summary(problems) ?? "";
    for (const w of active) setText(w, message);
  };

  const render = (value: unknown) => {
    built = build(value);
    grid.replaceChildren(...built.rows.map((r) => r.row));
    if (filter) filter.value = "";
  };

  let filter: HTMLInputElement | null = null;
  built = build(initial);
  const tools = h("div", { class: "nt-row nt-form-tools" });
  if (built.rows.length > FILTER_FIELDS) {
    const none = h("div", { class: "nt-form-help", hidden: true }, "No argument has that name.");
    filter = h("input", { class: "nt-input nt-form-filter", type: "search", placeholder: `Filter ${built.rows.length} arguments by name`, "aria-label": "Filter arguments by name" });
    filter.addEventListener("input", () => {
      const shown = new Set(filterOptions(built.rows.map((r) => r.name), filter!.value));
      for (const r of built.rows) r.row.hidden = !shown.has(r.name);
      none.hidden = shown.size > 0;
    });
    el.append(filter, none);
  }
  grid.append(...built.rows.map((r) => r.row));
  if (built.rows.length > 0) tools.append(resetButton);
  else el.append(h("div", { class: "nt-form-help" }, "This tool takes no arguments."));
  el.append(grid, formMessage, tools);
  showReset(readQuietly(built));

  resetButton.addEventListener("click", () => {
    render(undefined);
    if (submitted) check();
    else showReset(readQuietly(built));
  });
  // Fields the person typed in or changed: only those show a message when left. A field merely
  // passed through (a list item just added, then its × pressed) is not judged: a message appearing
  // between press and release would move the button away from under the pointer.
  const edited = new WeakSet<EventTarget>();
  el.addEventListener("input", (event) => {
    if (event.target === filter) return;
    if (event.target) edited.add(event.target);
    check();
  });
  /** The group of checkboxes (./checks) `target` is in, if any: edited and left as one field. */
  const groupOf = (target: HTMLElement) => scope.entries.find((e) => e.group?.contains(target))?.group ?? null;
  el.addEventListener("change", (event) => {
    if (event.target) edited.add(event.target);
    const group = groupOf(event.target as HTMLElement);
    if (group) edited.add(group);
    check();
  });
  // A field's message starts showing once the person leaves it after editing; a group of
  // checkboxes is left when focus goes outside it (not from one box to the next: "Choose at least
  // 2" would show while the second is being chosen).
  el.addEventListener("focusout", (event) => {
    const target = event.target as HTMLElement;
    const group = groupOf(target);
    if (group && group.contains(event.relatedTarget as Node | null)) return;
    const entry = group ? scope.entries.find((e) => e.group === group) : scope.entries.find((e) => e.focus === target);
    if (entry && !entry.shown && edited.has(group ?? target) && target.matches(".nt-input, input")) {
      entry.shown = true;
      check();
    }
  });
  el.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement;
    if (event.key !== "Enter" || !options.onSubmit || event.isComposing) return;
    if (target.tagName !== "INPUT" || target === filter) return;
    event.preventDefault();
    options.onSubmit();
  });

  return {
    el,
    values: () => {
      submitted = true;
      const { value, problems } = collect();
      mark(problems, true);
      const message = summary(problems);
      if (message) {
        const first = problems[0][0];
        first.row.hidden = false;
        const focus = first.focus ?? first.row.querySelector<HTMLElement>("input, select, textarea, button");
        focus?.scrollIntoView?.({ block: "nearest" });
        focus?.focus();
        throw new Error(message);
      }
      return value;
    },
    watch: (problem) => void watchers.push(problem),
    report: () => ({ controls: scope.controls, anyValues: scope.anyValues, fallbacks: [...scope.fallbacks] }),
    reset: () => {
      render(undefined);
      showReset(readQuietly(built));
    },
    peek: () => {
      const { value, problems } = collect();
      return { value, problems: problems.map(([entry, message]) => `${nameOf(entry.path()) || "(root)"}: ${message}`) };
    },
  };
}

/** The value a built form reads now, problems ignored ({} when nothing is set). */
function readQuietly(built: Built): unknown {
  const value = built.read(new Map());
  return value === UNSET ? {} : value;
}

/** Whether the schema (its fields, their fields, ...) gives a default anywhere a form shows one. */
function declaresDefault(raw: Schema, root: Schema, depth: number): boolean {
  if (depth > 8) return false;
  const node = classify(raw, root);
  if (node.schema.default !== undefined) return true;
  if (node.kind.kind === "object") return Object.values(node.kind.properties).some((p) => declaresDefault(p, root, depth + 1));
  return false;
}

function readInto(control: Control, entry: Entry, problems: Map<Entry, string>): unknown {
  try {
    return control.read(problems);
  } catch (err) {
    problems.set(entry, (err as Error).message);
    return UNSET;
  }
}

/** The entry whose pointer is the longest prefix of `path`. */
function owner(entries: Entry[], path: string): Entry | null {
  let best: Entry | null = null;
  let bestLength = -1;
  for (const entry of entries) {
    const p = pointerOf(entry.path());
    if ((path === p || path.startsWith(`${p}/`)) && p.length >= bestLength) {
      best = entry;
      bestLength = p.length;
    }
  }
  return best;
}

/** "filters[0].column" from ["filters", 0, "column"]. */
export function nameOf(path: Array<string | number>): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : /^[A-Za-z_$][\w$-]*$/.test(p) ? (i === 0 ? p : `.${p}`) : `[${JSON.stringify(p)}]`)).join("");
}

/** The argument form of approval edits, tools run by hand and the bench: the engine over a tool's
 * input schema, read back as the object of arguments. */
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
