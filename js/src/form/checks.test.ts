// A closed set of choices (an enum array with uniqueItems) as a group of checkboxes, in jsdom:
// what is drawn, what is read back (the list editor's JSON, in the schema's order), min/max said and
// checked, defaults, hostile labels as text, the filter of a long list, and what stays a list editor.
import { HOSTILE, noInjectedMarkup } from "../results/testDom";
import { test } from "node:test";
import assert from "node:assert/strict";

import { buildForm } from "./form";
import { CHECKS_FILTER, countRule } from "./checks";
import { checkable, classify, closedSet } from "./schema";
import { plain } from "../text/sanitize";

(globalThis as Record<string, unknown>).Text = (window as any).Text;

const $$ = (root: Element, sel: string) => Array.from(root.querySelectorAll(sel));
/** The checkbox whose label says `label`, as a person finds it. */
function box(root: Element, label: string): HTMLInputElement {
  const found = $$(root, "label.nt-check").find((l) => l.textContent === label);
  assert.ok(found, `a checkbox labelled ${label}`);
  return found.querySelector("input[type=checkbox]") as HTMLInputElement;
}
function click(el: HTMLInputElement): void {
  el.click(); // jsdom toggles `checked` and fires input and change, as a browser does
}
function leave(el: Element, to: Element | null): void {
  el.dispatchEvent(new (window as any).FocusEvent("focusout", { bubbles: true, relatedTarget: to }));
}

const columns = ["species", "island", "bill_length_mm", "sex"];
const consent = {
  type: "object",
  properties: {
    send: { type: "string", oneOf: [{ const: "send", title: "Send it" }, { const: "mask", title: "Mask" }], default: "send" },
    mask: { type: "array", title: "Columns to mask", items: { type: "string", enum: columns }, uniqueItems: true },
  },
  required: ["send"],
  additionalProperties: false,
};

test("an enum array with uniqueItems is a fieldset of labelled checkboxes, legend the array's title", () => {
  const form = buildForm(consent, {}, "k");
  document.body.append(form.el);
  const group = form.el.querySelector("fieldset.nt-checks")!;
  assert.ok(group, "a fieldset");
  assert.equal(group.querySelector("legend")!.textContent, "Columns to mask");
  assert.deepEqual($$(group, "label.nt-check").map((l) => l.textContent), columns);
  // One native checkbox per choice, inside its label: Tab reaches each, Space ticks it.
  for (const input of $$(group, "input")) {
    assert.equal((input as HTMLInputElement).type, "checkbox");
    assert.equal(input.closest("label")!.getAttribute("for"), input.id);
    assert.equal(input.getAttribute("tabindex"), null);
  }
  // No list editor: no "Add an item", no select per item.
  assert.equal(form.el.querySelector("[aria-label='Add an item to mask']"), null);
  assert.equal(group.querySelector("select"), null);
  // The fieldset is named by its legend (not the row's label) and described by its error line.
  assert.equal(group.getAttribute("aria-labelledby"), null);
  assert.equal(form.el.querySelector("#k-mask-label")!.getAttribute("for"), null);
  assert.ok(group.getAttribute("aria-describedby")!.split(" ").includes("k-mask-error"));
  form.el.remove();
});

test("the value is the list editor's: the chosen strings in the enum's order, whatever the clicking order", () => {
  const form = buildForm(consent, {}, "k");
  document.body.append(form.el);
  assert.deepEqual(form.values(), { send: "send" }, "untouched and optional: left out, as the list editor leaves it");
  click(box(form.el, "sex"));
  click(box(form.el, "species"));
  click(box(form.el, "island"));
  assert.deepEqual(form.values(), { send: "send", mask: ["species", "island", "sex"] });
  click(box(form.el, "island"));
  assert.deepEqual(form.values(), { send: "send", mask: ["species", "sex"] });
  click(box(form.el, "species"));
  click(box(form.el, "sex"));
  assert.deepEqual(form.values(), { send: "send", mask: [] }, "chosen, then unchosen: the person made it []");
  assert.deepEqual(form.peek().problems, []);
  form.el.remove();
});

test("items as oneOf/anyOf of const+title: the titles are the labels, the consts the value", () => {
  for (const keyword of ["oneOf", "anyOf"]) {
    const schema = {
      type: "object",
      properties: { days: { type: "array", uniqueItems: true, items: { [keyword]: [{ const: "mon", title: "Monday" }, { const: "tue", title: "Tuesday" }, { const: "wed", title: "Wednesday" }] } } },
    };
    const form = buildForm(schema, {}, "d");
    assert.deepEqual($$(form.el, "label.nt-check").map((l) => l.textContent), ["Monday", "Tuesday", "Wednesday"]);
    click(box(form.el, "Wednesday"));
    click(box(form.el, "Monday"));
    assert.deepEqual(form.values(), { days: ["mon", "wed"] });
  }
});

test("a pydantic enum by $ref (set[Colour]) is checkboxes too, and its min message says choose", () => {
  const schema = {
    $defs: { Colour: { enum: ["red", "green", "blue"], title: "Colour", type: "string" } },
    properties: { colours: { items: { $ref: "#/$defs/Colour" }, type: "array", uniqueItems: true, minItems: 1, title: "Colours" } },
    required: ["colours"],
    type: "object",
  };
  const form = buildForm(schema, {}, "p");
  assert.ok(form.el.querySelector("fieldset.nt-checks"));
  assert.deepEqual(form.peek().problems, ["colours: Choose at least 1"]);
});

test("minItems/maxItems: said under the legend; the message shows once focus leaves the group, and on submit", () => {
  const schema = { type: "object", properties: { pick: { type: "array", items: { enum: ["a", "b", "c", "d"] }, uniqueItems: true, minItems: 2, maxItems: 3 } } };
  const form = buildForm(schema, {}, "m");
  document.body.append(form.el);
  const group = form.el.querySelector("fieldset.nt-checks")!;
  const rule = group.querySelector(".nt-checks-rule")!;
  assert.equal(rule.textContent, "Choose 2 to 3.");
  assert.equal(group.getAttribute("aria-describedby")!.split(" ")[0], rule.id, "the rule is read with the group");
  const error = form.el.querySelector("#m-pick-error")!;
  click(box(form.el, "a"));
  leave(box(form.el, "a"), box(form.el, "b")); // on to the next box: still choosing, no message yet
  assert.equal(error.textContent, "");
  leave(box(form.el, "b"), document.body); // out of the group with one chosen
  assert.equal(error.textContent, "Choose at least 2");
  assert.equal(group.getAttribute("aria-invalid"), "true");
  assert.ok(form.el.querySelector("#m-pick-label")!.closest(".nt-form-row")!.classList.contains("nt-invalid"));
  click(box(form.el, "c"));
  assert.equal(error.textContent, "", "gone as soon as it is right");
  assert.equal(group.getAttribute("aria-invalid"), null);
  click(box(form.el, "b"));
  click(box(form.el, "d"));
  assert.equal(error.textContent, "Choose at most 3");
  assert.throws(() => form.values(), /Fix pick/);
  click(box(form.el, "a"));
  assert.deepEqual(form.values(), { pick: ["b", "c", "d"] });
  form.el.remove();

  assert.equal(countRule(0, Infinity), "");
  assert.equal(countRule(1, Infinity), "Choose at least 1.");
  assert.equal(countRule(0, 2), "Choose at most 2.");
  assert.equal(countRule(2, 2), "Choose 2.");
});

test("a required group with minItems: submitting with nothing chosen marks it and focuses its first box", () => {
  const schema = { type: "object", properties: { pick: { type: "array", items: { enum: ["a", "b"] }, uniqueItems: true, minItems: 1 } }, required: ["pick"] };
  const form = buildForm(schema, {}, "r");
  document.body.append(form.el);
  assert.throws(() => form.values(), /Fix pick/);
  assert.equal(form.el.querySelector("#r-pick-error")!.textContent, "Choose at least 1");
  assert.equal(document.activeElement, box(form.el, "a"));
  form.el.remove();
});

test("the default is checked; Reset to defaults puts it back; unchecking it sends []", () => {
  const schema = { type: "object", properties: { days: { type: "array", items: { type: "string", enum: ["mon", "tue", "wed"] }, uniqueItems: true, default: ["tue"] } } };
  const form = buildForm(schema, {}, "f");
  document.body.append(form.el);
  assert.equal(box(form.el, "tue").checked, true);
  assert.equal(box(form.el, "mon").checked, false);
  assert.deepEqual(form.values(), { days: ["tue"] });
  const reset = form.el.querySelector<HTMLButtonElement>(".nt-form-reset")!;
  assert.equal(reset.hidden, true);
  click(box(form.el, "tue"));
  assert.deepEqual(form.values(), { days: [] });
  assert.equal(reset.hidden, false);
  reset.click();
  assert.equal(box(form.el, "tue").checked, true);
  assert.deepEqual(form.values(), { days: ["tue"] });
  form.el.remove();
});

test("a pre-filled value: its choices checked and, untouched, sent as it came (even out of enum order)", () => {
  const form = buildForm(consent, { send: "mask", mask: ["sex", "island"] }, "v");
  assert.deepEqual($$(form.el, "label.nt-check input:checked").map((i) => i.closest("label")!.textContent), ["island", "sex"]);
  assert.deepEqual(form.values(), { send: "mask", mask: ["sex", "island"] });
  click(box(form.el, "species"));
  assert.deepEqual(form.values(), { send: "mask", mask: ["species", "island", "sex"] }, "changed: the enum's order");
});

test("a value checkboxes cannot show whole goes to the list editor, as before, where ajv says what is wrong", () => {
  for (const mask of [["island", "island"], ["island", "nope"], "island", [1]]) {
    const form = buildForm(consent, { send: "send", mask }, "x");
    assert.equal(form.el.querySelector("fieldset.nt-checks"), null, JSON.stringify(mask));
    assert.ok(form.el.querySelector("[aria-label='Add an item to mask']"));
  }
  // A repeated choice is shown as given, two items, and refused by uniqueItems (a box would hide it).
  const twice = buildForm(consent, { send: "send", mask: ["island", "island"] }, "x2");
  assert.deepEqual(twice.peek(), { value: { send: "send", mask: ["island", "island"] }, problems: ["mask: Items 1 and 2 are the same: each must be different"] });
  assert.equal(checkable(undefined, [{ value: "a" }]), true);
  assert.equal(checkable(null, [{ value: "a" }]), true);
  assert.equal(checkable(["a"], [{ value: "a" }]), true);
});

test("not a closed set of strings: without uniqueItems, with numbers, or nullable items, it stays a list", () => {
  const root = {};
  const set = (schema: object) => closedSet(classify(schema, root), root);
  assert.ok(set({ type: "array", items: { enum: ["a"] }, uniqueItems: true }));
  assert.equal(set({ type: "array", items: { enum: ["a", "b"] } }), null);
  assert.equal(set({ type: "array", items: { enum: [1, 2] }, uniqueItems: true }), null);
  assert.equal(set({ type: "array", items: { enum: ["a", null] }, uniqueItems: true }), null);
  assert.equal(set({ type: "array", items: { type: "string" }, uniqueItems: true }), null);
  const form = buildForm({ type: "object", properties: { tags: { type: "array", items: { enum: ["a", "b"] } } } }, {}, "l");
  assert.equal(form.el.querySelector("fieldset.nt-checks"), null);
  assert.ok(form.el.querySelector("[aria-label='Add an item to tags']"));
});

test("a nullable enum array: null until the toggle is turned off, then the checkboxes", () => {
  const schema = { type: "object", properties: { cols: { anyOf: [{ type: "array", items: { enum: ["a", "b"] }, uniqueItems: true }, { type: "null" }], default: null } } };
  const form = buildForm(schema, {}, "n");
  document.body.append(form.el);
  assert.ok(form.el.querySelector("fieldset.nt-checks"));
  assert.deepEqual(form.values(), {});
  const toggle = form.el.querySelector<HTMLInputElement>("#n-cols-null")!;
  toggle.click();
  assert.deepEqual(form.values(), { cols: [] }, "null turned off: the person asks for a list");
  click(box(form.el, "b"));
  assert.deepEqual(form.values(), { cols: ["b"] });
  form.el.remove();
});

test("hostile choice labels and titles are shown as text, never as markup", () => {
  const hostile = [...HOSTILE, "<img src=x onerror=alert(1)>"];
  const schema = { type: "object", properties: { pick: { type: "array", title: HOSTILE[0], uniqueItems: true, items: { anyOf: hostile.map((title, i) => ({ const: `v${i}`, title })) } } } };
  const form = buildForm(schema, {}, "h");
  document.body.append(form.el);
  noInjectedMarkup(form.el);
  assert.equal(form.el.querySelector("img"), null);
  assert.equal(form.el.querySelector("legend")!.textContent, HOSTILE[0]);
  const labels = $$(form.el, "label.nt-check").map((l) => l.textContent);
  assert.deepEqual(labels, hostile.map((s) => plain(s)));
  assert.ok(labels.includes("<img src=x onerror=alert(1)>"));
  click(box(form.el, "<img src=x onerror=alert(1)>"));
  assert.deepEqual(form.values(), { pick: [`v${hostile.length - 1}`] });
  // Raw enum values as labels, too.
  const raw = buildForm({ type: "object", properties: { pick: { type: "array", uniqueItems: true, items: { enum: hostile } } } }, {}, "h2");
  noInjectedMarkup(raw.el);
  assert.deepEqual($$(raw.el, "label.nt-check").map((l) => l.textContent), hostile.map((s) => plain(s)), "as text (bidi overrides made visible)");
  form.el.remove();
});

test(`more than ${CHECKS_FILTER} choices: a filter box hides the others; what is chosen stays chosen`, () => {
  const names = Array.from({ length: 45 }, (_, i) => `column_${String(i).padStart(2, "0")}`);
  const schema = { type: "object", properties: { mask: { type: "array", items: { enum: names }, uniqueItems: true } } };
  let submitted = 0;
  const form = buildForm(schema, {}, "g", { onSubmit: () => void (submitted += 1) });
  document.body.append(form.el);
  const filter = form.el.querySelector<HTMLInputElement>(".nt-checks-filter")!;
  assert.ok(filter, "a filter box");
  assert.equal(filter.getAttribute("aria-label"), "Filter the choices of mask");
  click(box(form.el, "column_03"));
  filter.value = "column_4";
  filter.dispatchEvent(new (window as any).Event("input", { bubbles: true }));
  const shown = $$(form.el, "label.nt-check").filter((l) => !(l as HTMLElement).hidden).map((l) => l.textContent);
  assert.deepEqual(shown, names.slice(40));
  click(box(form.el, "column_41"));
  assert.deepEqual(form.values(), { mask: ["column_03", "column_41"] }, "a chosen box the filter hides is still sent");
  assert.equal(form.el.querySelector(".nt-checks-count")!.textContent, "2 of 45 chosen");
  filter.value = "nothing like it";
  filter.dispatchEvent(new (window as any).Event("input", { bubbles: true }));
  assert.equal((form.el.querySelector(".nt-checks .nt-form-help:not(.nt-checks-count)") as HTMLElement).hidden, false);
  // Enter in the filter does not submit; typing in it is not an answer.
  filter.dispatchEvent(new (window as any).KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
  assert.equal(submitted, 0);
  const blank = buildForm(schema, {}, "g2");
  const otherFilter = blank.el.querySelector<HTMLInputElement>(".nt-checks-filter")!;
  otherFilter.value = "col";
  otherFilter.dispatchEvent(new (window as any).Event("input", { bubbles: true }));
  assert.deepEqual(blank.values(), {}, "filtering alone leaves the optional field unset");
  form.el.remove();
});

test(`${CHECKS_FILTER} choices or fewer: no filter box`, () => {
  const names = Array.from({ length: CHECKS_FILTER }, (_, i) => `c${i}`);
  const form = buildForm({ type: "object", properties: { mask: { type: "array", items: { enum: names }, uniqueItems: true } } }, {}, "s");
  assert.equal(form.el.querySelector(".nt-checks-filter"), null);
  assert.equal($$(form.el, "label.nt-check").length, CHECKS_FILTER);
});
