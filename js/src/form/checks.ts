// A closed set of choices as a group of checkboxes: an array of strings from a fixed list, each at
// most once (`uniqueItems` over an enum, or over a oneOf/anyOf of consts with titles), the usual
// "pick any of these" field. A fieldset whose legend is the array's title, one labelled native
// checkbox per choice (Tab and Space work as everywhere). It reads the JSON the list editor would
// give for the same choices, in the schema's order, so ajv, the kernel and the tool see no
// difference; minItems/maxItems are said under the legend, and ajv's message shows once the person
// leaves the group (form.ts) or submits. Long lists get a filter box over the choices.
import { h } from "../dom/dom";
import type { Control, Where } from "./contract";
import { filterOptions } from "./filter";
import type { Node } from "./schema";
import { UNSET } from "./values";

/** Groups with more choices than this get a filter box. */
export const CHECKS_FILTER = 30;

/** What the group's min/max ask, in plain words; "" when they ask nothing. */
export function countRule(min: number, max: number): string {
  if (min > 0 && Number.isFinite(max)) return min === max ? `Choose ${min}.` : `Choose ${min} to ${max}.`;
  if (min > 0) return `Choose at least ${min}.`;
  if (Number.isFinite(max)) return `Choose at most ${max}.`;
  return "";
}

export function checks(node: Node, options: Array<{ value: string; label: string }>, where: Where, value: unknown): Control {
  const { schema } = node;
  const given = Array.isArray(value) ? (value as string[]) : null;
  const title = typeof schema.title === "string" && schema.title.trim() ? schema.title : where.label;
  // The row's label already says the field's name: a legend saying it again is for screen readers only.
  const legend = h("legend", { class: title === where.label ? "nt-visually-hidden" : "nt-checks-legend" }, title);
  const el = h("fieldset", { class: "nt-checks", id: `${where.id}-group` }, legend);
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  const max = typeof schema.maxItems === "number" ? schema.maxItems : Infinity;
  const rule = countRule(min, max);
  if (rule) {
    el.append(h("div", { class: "nt-form-help nt-checks-rule", id: `${where.id}-rule` }, rule));
    el.setAttribute("aria-describedby", `${where.id}-rule`); // field() adds the help and error lines
  }
  const list = h("div", { class: "nt-checks-list" });
  const boxes = options.map((option, i) => {
    const box = h("input", { type: "checkbox", id: `${where.id}-choice-${i}`, value: String(i) });
    box.checked = given?.includes(option.value) ?? false;
    box.disabled = schema.readOnly === true;
    list.append(h("label", { class: "nt-check", for: box.id }, box, h("span", {}, option.label)));
    return box;
  });
  let touched = false;
  const count = h("div", { class: "nt-form-help nt-checks-count", "aria-live": "polite" });
  const chosen = () => options.filter((_, i) => boxes[i].checked).map((o) => o.value);
  const recount = () => {
    const n = chosen().length;
    count.textContent = `${n} of ${options.length} chosen`;
  };
  list.addEventListener("change", () => {
    touched = true;
    recount();
  });
  if (options.length > CHECKS_FILTER) {
    el.classList.add("nt-checks-long");
    const labels = options.map((o) => o.label);
    const none = h("div", { class: "nt-form-help", hidden: true }, "No choice has that name.");
    const filter = h("input", { class: "nt-input nt-checks-filter", type: "search", placeholder: `Filter ${options.length} choices`, "aria-label": `Filter the choices of ${title}` });
    filter.addEventListener("input", (event) => {
      // Filtering is not editing: the form neither checks nor counts it as the person's answer.
      event.stopPropagation();
      const shown = new Set(filterOptions(labels, filter.value));
      boxes.forEach((box, i) => void ((box.parentElement as HTMLElement).hidden = !shown.has(labels[i])));
      none.hidden = shown.size > 0;
    });
    filter.addEventListener("change", (event) => event.stopPropagation());
    filter.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault(); // Enter in the filter does not submit the form
      event.stopPropagation();
    });
    el.append(filter, list, none, count);
    recount();
  } else {
    el.append(list);
  }
  const present = () => touched || where.required || given !== null;
  return {
    el,
    focus: boxes[0] ?? null,
    group: true,
    touch: () => void (touched = true),
    read: () => {
      const out = chosen();
      if (out.length === 0 && !present()) return UNSET;
      // The very choices given, in another order, go back as they came: the form reorders nothing
      // the person did not change. Other choices read in the schema's order.
      if (given && given.length === out.length && given.every((v) => out.includes(v))) return given.slice();
      return out;
    },
  };
}
