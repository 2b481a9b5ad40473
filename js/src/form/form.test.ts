// The form engine filled as a person would, in jsdom: typing, picking, adding and removing items,
// choosing a variant, the null toggle, maps, defaults and "Reset to defaults", messages under the
// field that follow the typing, Enter, and what the screen reader is told.
process.env.TZ = "UTC";
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1:8888/lab" });
const g = globalThis as Record<string, unknown>;
g.window = dom.window;
g.document = dom.window.document;
for (const name of ["Node", "Element", "HTMLElement", "DocumentFragment", "Text", "Event"]) g[name] = (dom.window as any)[name];

import { buildForm } from "./form";
import { classify, normalise } from "./schema";
import { dateTimeFromLocal, localFromDateTime } from "./values";

function type(el: Element | null, value: string): void {
  const input = el as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new dom.window.Event("input", { bubbles: true }));
}
function pick(el: Element | null, label: string): void {
  const select = el as HTMLSelectElement;
  const option = Array.from(select.options).find((o) => o.textContent === label);
  assert.ok(option, `option ${label}`);
  select.value = option.value;
  select.dispatchEvent(new dom.window.Event("change", { bubbles: true }));
}
function leave(el: Element | null): void {
  el!.dispatchEvent(new dom.window.FocusEvent("focusout", { bubbles: true }));
}
const $ = (root: Element, sel: string) => root.querySelector(sel);

const pydanticQuery = {
  $defs: {
    Filter: { properties: { column: { type: "string" }, op: { enum: ["==", "<", ">"], type: "string" }, value: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }], default: null } }, required: ["column", "op"], type: "object" },
  },
  properties: {
    table: { type: "string", description: "Table name" },
    columns: { anyOf: [{ items: { type: "string" }, type: "array" }, { type: "null" }], default: null },
    filters: { items: { $ref: "#/$defs/Filter" }, type: "array", default: [] },
    limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
  },
  required: ["table"],
  type: "object",
};

test("normalise: anyOf [T, null] and type lists are nullable T; $ref keeps the referring description", () => {
  assert.deepEqual(normalise({ anyOf: [{ type: "integer" }, { type: "null" }], default: null }, {}), { schema: { type: "integer", default: null }, nullable: true });
  assert.deepEqual(normalise({ type: ["string", "null"] }, {}), { schema: { type: "string" }, nullable: true });
  const root = { $defs: { A: { type: "object", properties: { x: { type: "integer" } } } } };
  assert.equal(normalise({ $ref: "#/$defs/A", description: "an A" }, root).schema.description, "an A");
  assert.equal(classify({ oneOf: [{ const: 1, title: "one" }, { const: 2, title: "two" }] }, {}).kind.kind, "choice");
  assert.equal(classify({ $ref: "#/nowhere" }, {}).kind.kind, "json");
});

test("a pydantic form filled by hand: typing, adding a list item, picking, exact JSON back", () => {
  const form = buildForm(pydanticQuery, {}, "q");
  document.body.append(form.el);
  type($(form.el, "#q-table"), "sales");
  const add = form.el.querySelector<HTMLButtonElement>("#q-filters + .nt-add, [aria-label='Add an item to filters']")!;
  add.click();
  const item = form.el.querySelector(".nt-form-list .nt-form-row")!;
  type(item.querySelector("[id$='-column']"), "region");
  pick(item.querySelector("[id$='-op']"), "<");
  // value: nullable (starts at null); turn null off, choose "number", type 3
  const nullToggle = item.querySelector<HTMLInputElement>("[id$='-value-null']")!;
  assert.equal(nullToggle.checked, true);
  nullToggle.checked = false;
  nullToggle.dispatchEvent(new dom.window.Event("change", { bubbles: true }));
  pick(item.querySelector("[id$='-value']"), "number");
  type(item.querySelector(".nt-variant-body input"), "3");
  type($(form.el, "#q-limit"), "50");
  assert.deepEqual(form.values(), { table: "sales", filters: [{ column: "region", op: "<", value: 3 }], limit: 50 });
  form.el.remove();
});

test("an empty list stays [] once it was touched; an item removed is gone", () => {
  const form = buildForm({ type: "object", properties: { tags: { type: "array", items: { type: "string" } } } }, {}, "l");
  assert.deepEqual(form.values(), {}); // never touched, optional: left out
  const add = form.el.querySelector<HTMLButtonElement>(".nt-add")!;
  add.click();
  add.click();
  const inputs = form.el.querySelectorAll(".nt-form-list input");
  type(inputs[0], "a");
  type(inputs[1], "b");
  assert.deepEqual(form.values(), { tags: ["a", "b"] });
  form.el.querySelectorAll<HTMLButtonElement>(".nt-remove")[0].click();
  assert.deepEqual(form.values(), { tags: ["b"] });
  form.el.querySelector<HTMLButtonElement>(".nt-remove")!.click();
  assert.deepEqual(form.values(), { tags: [] });
});

test("minItems adds the items it needs; maxItems hides Add; the remove button respects minItems", () => {
  const form = buildForm({ type: "object", properties: { p: { type: "array", items: { type: "integer" }, minItems: 1, maxItems: 2 } }, required: ["p"] }, {}, "m");
  const add = form.el.querySelector<HTMLButtonElement>(".nt-add")!;
  assert.equal(form.el.querySelectorAll(".nt-form-list .nt-form-row").length, 1);
  assert.equal(form.el.querySelector<HTMLButtonElement>(".nt-remove")!.disabled, true);
  add.click();
  assert.equal(add.hidden, true);
  const inputs = form.el.querySelectorAll(".nt-form-list input");
  type(inputs[0], "1");
  type(inputs[1], "2");
  assert.deepEqual(form.values(), { p: [1, 2] });
});

test("a oneOf of object shapes: the chooser switches the fields, the discriminator is fixed", () => {
  const schema = {
    type: "object",
    properties: {
      target: {
        oneOf: [
          { type: "object", title: "A file", properties: { type: { const: "file" }, path: { type: "string" } }, required: ["type", "path"] },
          { type: "object", title: "A URL", properties: { type: { const: "url" }, url: { type: "string", format: "uri" } }, required: ["type", "url"] },
        ],
      },
    },
    required: ["target"],
  };
  const form = buildForm(schema, { target: { type: "url", url: "https://a.example" } }, "o");
  const chooser = form.el.querySelector<HTMLSelectElement>("#o-target")!;
  assert.equal(chooser.selectedOptions[0].textContent, "A URL"); // the value's own shape is chosen
  pick(chooser, "A file");
  type(form.el.querySelector("[id$='-path']"), "/tmp/x");
  assert.deepEqual(form.values(), { target: { type: "file", path: "/tmp/x" } });
});

test("a map: key/value rows; an empty key is a problem on its row", () => {
  const form = buildForm({ type: "object", properties: { headers: { type: "object", additionalProperties: { type: "integer" } } } }, { headers: { a: 1 } }, "k");
  form.el.querySelector<HTMLButtonElement>("[aria-label='Add an entry to headers']")!.click();
  const keys = form.el.querySelectorAll(".nt-map-key");
  const values = form.el.querySelectorAll(".nt-form-map input[type=number]");
  type(values[1], "2");
  assert.throws(() => form.values(), /^Error: Fix headers\[""\] \(marked in the form\) before sending\.$/);
  assert.deepEqual(form.peek().problems, ['headers[""]: Enter a key for this entry']);
  type(keys[1], "b");
  assert.deepEqual(form.values(), { headers: { a: 1, b: 2 } });
});

test("messages: shown after the field is left, then follow the typing; ajv's pointer finds nested fields", () => {
  const schema = {
    type: "object",
    properties: { code: { type: "string", pattern: "^[A-Z]{3}$" }, rows: { type: "array", items: { type: "object", properties: { qty: { type: "integer", minimum: 1 } }, required: ["qty"] } } },
    required: ["code"],
  };
  const form = buildForm(schema, { rows: [{ qty: 1 }] }, "v");
  document.body.append(form.el);
  const code = form.el.querySelector<HTMLInputElement>("#v-code")!;
  type(code, "ab");
  assert.equal($(form.el, "#v-code-error")!.textContent, ""); // not while first typing
  leave(code);
  assert.equal($(form.el, "#v-code-error")!.textContent, "Use 3 capital letters"); // not the pattern itself
  assert.equal(code.getAttribute("aria-invalid"), "true");
  type(code, "ABC");
  assert.equal($(form.el, "#v-code-error")!.textContent, "");
  const qty = form.el.querySelector<HTMLInputElement>(".nt-form-list input[id$='-qty']")!;
  type(qty, "0");
  assert.throws(() => form.values(), /^Error: Fix rows\[0\]\.qty \(marked in the form\) before sending\.$/);
  assert.equal(form.el.querySelector(`#${qty.id}-error`)!.textContent, "Enter 1 or more");
  assert.equal(document.activeElement, qty);
  form.el.remove();
});

test("labels, help and errors are wired for screen readers; required fields are marked", () => {
  const form = buildForm(pydanticQuery, {}, "a");
  const table = form.el.querySelector<HTMLInputElement>("#a-table")!;
  assert.equal(form.el.querySelector("label[for='a-table']")!.textContent, "table *");
  assert.equal(table.getAttribute("aria-describedby"), "a-table-help a-table-error");
  assert.equal(table.getAttribute("aria-required"), "true");
  assert.equal($(form.el, "#a-table-help")!.textContent, "Table name");
  assert.equal($(form.el, "#a-limit-help")!.textContent, "Default: 100");
  const group = form.el.querySelector("[role=group][aria-labelledby='a-filters-label']");
  assert.ok(group, "a list is a labelled group");
});

test("defaults are pre-filled; Reset to defaults puts them back", () => {
  const schema = { type: "object", properties: { n: { type: "integer", default: 3 }, on: { type: "boolean", default: true }, mode: { enum: ["a", "b"], default: "b" } } };
  const form = buildForm(schema, { n: 7, on: false, mode: "a" }, "d");
  assert.deepEqual(form.values(), { n: 7, on: false, mode: "a" });
  form.el.querySelector<HTMLButtonElement>(".nt-form-reset")!.click();
  assert.deepEqual(form.values(), { n: 3, on: true, mode: "b" });
});

test("Enter in a field submits; in a multi-line box it does not", () => {
  let sent = 0;
  const form = buildForm({ type: "object", properties: { q: { type: "string" }, free: {} } }, {}, "e", { onSubmit: () => sent++ });
  const enter = (el: Element) => el.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  enter(form.el.querySelector("#e-q")!);
  assert.equal(sent, 1);
  enter(form.el.querySelector("select")!);
  assert.equal(sent, 1);
});

test("readOnly fields are shown, not editable, and kept; undeclared keys stay in a JSON box", () => {
  const schema = { type: "object", properties: { id: { type: "string", readOnly: true }, n: { type: "integer" } } };
  const form = buildForm(schema, { id: "x1", n: 1, legacy: { a: [1] } }, "r");
  assert.equal(form.el.querySelector<HTMLInputElement>("#r-id")!.readOnly, true);
  assert.deepEqual(form.values(), { id: "x1", n: 1, legacy: { a: [1] } });
  assert.deepEqual(form.report().fallbacks, [{ path: "(root)", reason: "a list or object where any JSON value is allowed" }]);
});

test("formats pick input types; a date-time round-trips through the local picker", () => {
  const form = buildForm({ type: "object", properties: { d: { type: "string", format: "date" }, t: { type: "string", format: "date-time" }, e: { type: "string", format: "email" }, u: { type: "string", format: "uri" } } }, {}, "f");
  assert.deepEqual(["d", "t", "e", "u"].map((k) => form.el.querySelector<HTMLInputElement>(`#f-${k}`)!.type), ["date", "datetime-local", "email", "url"]);
  assert.equal(dateTimeFromLocal("2024-05-01T09:30", 120), "2024-05-01T09:30:00+02:00");
  assert.equal(dateTimeFromLocal("2024-05-01T09:30", 0), "2024-05-01T09:30:00Z");
  assert.equal(localFromDateTime("2024-05-01T09:30:00Z"), "2024-05-01T09:30");
  type(form.el.querySelector("#f-e"), "not an email");
  assert.deepEqual(form.values(), { e: "not an email" }); // the kernel checks no format, so neither does the browser
});

test("a frontend tool's answer schema that is not an object is one labelled field", () => {
  const form = buildForm({ type: "array", items: { type: "integer" } }, undefined, "x", { rootLabel: "answer" });
  form.el.querySelector<HTMLButtonElement>(".nt-add")!.click();
  type(form.el.querySelector(".nt-form-list input"), "4");
  assert.deepEqual(form.values(), [4]);
});

test("a custom frontend tool whose output schema is an object answers from a form, as JSON text", async () => {
  const { renderText } = await import("../prompts/text");
  const sent: unknown[] = [];
  const prompt = {
    kind: "generic", tool_use_id: "c9", name: "pick", input: { purpose: "the chart" }, input_schema: {}, description: "",
    output_schema: { type: "object", properties: { hex: { type: "string", pattern: "^#[0-9a-f]{6}$" }, alpha: { type: "number", default: 1 } }, required: ["hex"] },
  };
  const body = document.createElement("div");
  renderText({ prompt, submit: (a: unknown) => sent.push(a) } as any, body, () => {});
  assert.equal(body.querySelector("textarea"), null); // no raw JSON box
  type(body.querySelector("#nt-answer-c9-hex"), "blue");
  body.querySelector<HTMLButtonElement>(".nt-btn.nt-primary")!.click();
  assert.deepEqual(sent, []); // refused in the browser first
  // The card's line names the field; what is wrong shows once, under the field, in plain words.
  assert.equal(body.querySelector(".nt-error")!.textContent, "Fix hex (marked in the form) before sending.");
  assert.equal(body.querySelector("#nt-answer-c9-hex-error")!.textContent, "Use a colour like #1a2b3c");
  type(body.querySelector("#nt-answer-c9-hex"), "#1f77b4");
  body.querySelector("#nt-answer-c9-hex")!.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  assert.deepEqual(sent, [{ value: '{"hex":"#1f77b4","alpha":1}' }]);
});

test("a schema that requires itself stops at a depth and keeps the rest as JSON", () => {
  const schema = { $defs: { Node: { type: "object", properties: { name: { type: "string" }, next: { $ref: "#/$defs/Node" } }, required: ["name", "next"] } }, $ref: "#/$defs/Node" };
  const form = buildForm(schema, undefined, "deep");
  assert.deepEqual(form.report().fallbacks.map((f) => f.reason), ["nested more than 12 levels deep"]);
});

test("a schema is compiled once by its text; one ajv cannot compile leaves the check to the kernel", async () => {
  const { validatorFor } = await import("./validate");
  const a = validatorFor({ type: "object", properties: { n: { type: "integer" } } });
  assert.ok(a);
  assert.equal(validatorFor({ type: "object", properties: { n: { type: "integer" } } }), a);
  assert.equal(validatorFor({ type: "nonsense" }), null);
  const form = buildForm({ type: "object", properties: { n: { type: "nonsense" } } }, { n: 1 }, "nc");
  assert.deepEqual(form.values(), { n: 1 }); // no browser check, no exception
});

test("nested keys the schema does not declare are kept; patternProperties are a map", () => {
  const schema = { type: "object", properties: { config: { type: "object", properties: { retries: { type: "integer" } } }, labels: { type: "object", patternProperties: { "^[a-z]+$": { type: "integer" } } } } };
  const form = buildForm(schema, { config: { retries: 2, legacy: true }, labels: { a: 1 } }, "u");
  assert.deepEqual(form.values(), { config: { retries: 2, legacy: true }, labels: { a: 1 } });
  assert.ok(form.el.querySelector("#u-labels-extra, .nt-form-map .nt-map-key"));
});

test("an optional nested object left untouched is left out; once edited it is sent and checked", () => {
  const schema = {
    type: "object",
    properties: {
      retry: { type: "object", properties: { times: { type: "integer" }, tags: { type: "array", items: { type: "string" } } }, required: ["times"] },
      label: { type: "object", properties: { x: { type: "string" } }, required: ["x"] },
      free: {},
      either: { anyOf: [{ type: "string" }, { type: "integer" }] },
    },
  };
  const form = buildForm(schema, {}, "opt");
  assert.deepEqual(form.peek(), { value: {}, problems: [] });
  assert.deepEqual(form.values(), {}); // not {label: {x: ""}}, not "" is not a whole number
  type(form.el.querySelector("#opt-retry-times"), "3");
  assert.deepEqual(form.values(), { retry: { times: 3 } });
  // Given, the object stays as it came, even with an empty required string.
  assert.deepEqual(buildForm(schema, { label: { x: "" } }, "opt2").values(), { label: { x: "" } });
  // Adding a list item inside is an edit: the object is then sent, and its required field asked for.
  const again = buildForm(schema, {}, "opt3");
  again.el.querySelector<HTMLButtonElement>("[aria-label='Add an item to tags']")!.click();
  assert.throws(() => again.values(), /^Error: Fix retry\.times /);
  assert.deepEqual(again.peek().problems, ["retry.times: Enter a whole number"]);
  // An any-value field or a union, untouched and optional, is left out too; chosen, it is sent.
  const chooser = buildForm(schema, {}, "opt4");
  pick(chooser.el.querySelector("#opt4-either"), "integer");
  // A nullable optional object: turning "null" off is the person asking for it.
  const nullable = buildForm({ type: "object", properties: { o: { anyOf: [{ type: "object", properties: { a: { type: "integer" } } }, { type: "null" }] } } }, {}, "opt5");
  document.body.append(nullable.el);
  assert.deepEqual(nullable.values(), {});
  nullable.el.querySelector<HTMLInputElement>("#opt5-o-null")!.click();
  assert.deepEqual(nullable.values(), { o: {} });
  nullable.el.remove();
  type(chooser.el.querySelector("#opt4-either ~ .nt-variant-body input"), "5");
  assert.deepEqual(chooser.values(), { either: 5 });
});

test("an optional boolean with no default shows \"not set\" and sends what is shown", () => {
  // Issue 26: an unticked box looked like false and sent nothing. "not set" is now a visible state.
  const schema = { type: "object", properties: { flag: { type: "boolean" }, on: { type: "boolean", default: false }, must: { type: "boolean" } }, required: ["must"] };
  assert.deepEqual(buildForm(schema, {}, "b1").values(), { on: false, must: false });
  assert.deepEqual(buildForm(schema, { flag: false, must: true }, "b2").values(), { flag: false, on: false, must: true });
  const form = buildForm(schema, {}, "b3");
  const flag = form.el.querySelector<HTMLSelectElement>("#b3-flag")!;
  assert.equal(flag.tagName, "SELECT");
  assert.equal(flag.selectedOptions[0].textContent, "not set");
  assert.equal(form.el.querySelector<HTMLInputElement>("#b3-on")!.type, "checkbox"); // a default: a box
  assert.equal(form.el.querySelector<HTMLInputElement>("#b3-must")!.type, "checkbox"); // required: a box
  pick(flag, "true");
  assert.deepEqual(form.values(), { flag: true, on: false, must: false });
  pick(flag, "false");
  assert.deepEqual(form.values(), { flag: false, on: false, must: false }); // the person said false
  pick(flag, "not set");
  assert.deepEqual(form.values(), { on: false, must: false });
});

test("an optional list with no items says whether it is not set or an empty list, and can be either", () => {
  const form = buildForm({ type: "object", properties: { tags: { type: "array", items: { type: "string" } }, ids: { type: "array", items: { type: "integer" } } }, required: ["ids"] }, {}, "ls");
  const [tags, ids] = Array.from(form.el.querySelectorAll<HTMLElement>(".nt-form-array"));
  const text = (list: HTMLElement) => list.querySelector(".nt-list-state-text")!.textContent;
  const toggle = (list: HTMLElement) => list.querySelector<HTMLButtonElement>(".nt-list-toggle")!;
  assert.match(text(tags), /^Not set/);
  assert.match(text(ids), /^Empty list/); // required: [] is what is sent, nothing to choose
  assert.equal(toggle(ids).hidden, true);
  assert.deepEqual(form.values(), { ids: [] });
  toggle(tags).click();
  assert.match(text(tags), /^Empty list/);
  assert.deepEqual(form.values(), { tags: [], ids: [] });
  toggle(tags).click();
  assert.deepEqual(form.values(), { ids: [] });
  // added then removed: the person made it an empty list, and the line says so
  tags.querySelector<HTMLButtonElement>(".nt-add")!.click();
  assert.equal(tags.querySelector<HTMLElement>(".nt-list-state")!.hidden, true);
  tags.querySelector<HTMLButtonElement>(".nt-remove")!.click();
  assert.match(text(tags), /^Empty list/);
  assert.deepEqual(form.values(), { tags: [], ids: [] });
});

test("an item just added and left untouched shows no message when focus leaves it (its × stays put)", () => {
  const form = buildForm({ type: "object", properties: { ids: { type: "array", items: { type: "integer" } } } }, {}, "ut");
  document.body.append(form.el);
  form.el.querySelector<HTMLButtonElement>(".nt-add")!.click();
  const input = form.el.querySelector<HTMLInputElement>(".nt-form-list input")!;
  assert.equal(document.activeElement, input);
  leave(input); // the pointer pressed its × (or moved on) without typing
  const message = form.el.querySelector(".nt-form-list .nt-field-error")!;
  assert.equal(message.textContent, "");
  assert.equal(input.getAttribute("aria-invalid"), null);
  type(input, "x1");
  leave(input); // edited and left: now it is judged
  assert.notEqual(message.textContent, "");
  form.el.remove();
});

test("formats are not checked in the browser (the kernel does not check them); input types stay", async () => {
  const { validate } = await import("./validate");
  const schema = { type: "object", properties: { u: { type: "string", format: "uri" }, e: { type: "string", format: "email" } } };
  const form = buildForm(schema, {}, "fm");
  assert.equal(form.el.querySelector<HTMLInputElement>("#fm-u")!.type, "url");
  type(form.el.querySelector("#fm-u"), "www.example.com");
  type(form.el.querySelector("#fm-e"), "not an email");
  assert.deepEqual(form.values(), { u: "www.example.com", e: "not an email" });
  assert.deepEqual(validate(schema, { u: "www.example.com" }), []);
});

test("errors of oneOf/anyOf branches not chosen do not land on the chosen variant", () => {
  const file = { type: "object", title: "A file", properties: { type: { const: "file" }, path: { type: "string", minLength: 1 } }, required: ["type", "path"] };
  const url = { type: "object", title: "A URL", properties: { type: { const: "url" }, url: { type: "string", pattern: "^https?://" } }, required: ["type", "url"] };
  for (const [key, target] of [["oneOf", { oneOf: [file, url] }], ["anyOf with null first", { anyOf: [{ type: "null" }, file, url] }]] as const) {
    const form = buildForm({ type: "object", properties: { target }, required: ["target"] }, { target: { type: "url", url: "ftp://x" } }, "br");
    const { problems } = form.peek();
    assert.ok(problems.includes("target.url: Enter a web address starting with http:// or https://"), `${key}: ${problems}`);
    assert.ok(!problems.some((p) => /file|path|required/.test(p)), `${key}: ${problems}`);
  }
});

test("a number the browser cannot read, or an integer beyond 2^53, is a field error, never dropped", () => {
  const form = buildForm({ type: "object", properties: { n: { type: "number" }, big: { type: "integer" } } }, {}, "bad");
  const n = form.el.querySelector<HTMLInputElement>("#bad-n")!;
  // "1,5" typed into a number input: the browser reports value "" and validity.badInput.
  Object.defineProperty(n, "validity", { value: { badInput: true }, configurable: true });
  type(n, "");
  assert.throws(() => form.values(), /^Error: Fix n /);
  assert.deepEqual(form.peek().problems, ["n: Enter a number"]);
  Object.defineProperty(n, "validity", { value: { badInput: false }, configurable: true });
  type(n, "1.5");
  type(form.el.querySelector("#bad-big"), "9007199254740993");
  assert.throws(() => form.values(), /^Error: Fix big /);
  assert.match(form.peek().problems[0], /^big: Enter a smaller number: .* exactly$/);
  type(form.el.querySelector("#bad-big"), "-9007199254740991");
  assert.deepEqual(form.values(), { n: 1.5, big: -9007199254740991 });
});

test("map keys and field names like built-in properties are plain keys; __proto__ never sets a prototype", () => {
  const form = buildForm({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "integer" } } } }, {}, "pk");
  const add = form.el.querySelector<HTMLButtonElement>("[aria-label='Add an entry to m']")!;
  ["constructor", "toString", "__proto__"].forEach((k, i) => {
    add.click();
    type(form.el.querySelectorAll(".nt-map-key")[i], k);
    type(form.el.querySelectorAll(".nt-form-map input[type=number]")[i], String(i + 1));
  });
  const value = form.values() as { m: object };
  assert.equal(JSON.stringify(value), '{"m":{"constructor":1,"toString":2,"__proto__":3}}');
  assert.equal(Object.getPrototypeOf(value.m), Object.prototype);
  // Declared names and undeclared keys of the value, at the top and nested.
  const schema = { type: "object", properties: { constructor: { type: "string" }, inner: { type: "object", properties: { toString: { type: "string" } } } } };
  assert.deepEqual(buildForm(schema, {}, "pk2").peek(), { value: {}, problems: [] });
  const given = JSON.parse('{"constructor":"c","inner":{"toString":"t","__proto__":{"y":2}},"__proto__":{"x":1}}');
  const back = buildForm(schema, given, "pk3").values() as object;
  assert.equal(JSON.stringify(back), JSON.stringify(given));
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
});

// -- issue 26: messages a person reads, once per field; "Reset to defaults" only where it does something

test("form messages are plain words from the schema, never JSON-Schema text, and show once per field", async () => {
  const { humanMessage, describePattern } = await import("./messages");
  const schema = {
    type: "object",
    properties: {
      colour: { type: "string", pattern: "^#[0-9a-fA-F]{6}$" },
      count: { type: "integer", minimum: 1, maximum: 10 },
      rows: { type: "array", items: { type: "string" }, maxItems: 2 },
      code: { type: "string", pattern: "^x-[0-9]+$", description: "x- and a number, like x-12" },
      mode: { enum: ["fast", "slow"] },
      name: { type: "string", minLength: 3 },
    },
    required: ["colour", "count", "rows", "mode", "name"],
  };
  const form = buildForm(schema, { colour: "blue", count: 0, rows: ["a", "b", "c"], code: "y", name: "ab" }, "hm");
  document.body.append(form.el);
  assert.throws(() => form.values(), /^Error: Fix colour and 5 more fields \(marked in the form\) before sending\.$/);
  const under = (id: string) => form.el.querySelector(`#hm-${id}-error`)!.textContent;
  assert.equal(under("colour"), "Use a colour like #1a2b3c"); // not: must match pattern "^#[0-9a-fA-F]{6}$"
  assert.equal(under("count"), "Enter 1 or more");
  assert.equal(under("rows"), "Keep at most 2 items");
  assert.equal(under("code"), "Not in the expected form: x- and a number, like x-12");
  assert.equal(under("name"), "Enter at least 3 characters");
  assert.equal(under("mode"), "Fill this in: it is required");
  const all = Array.from(form.el.querySelectorAll(".nt-field-error")).map((e) => e.textContent).filter(Boolean);
  assert.equal(all.length, 6, `one message per field, each once: ${all}`);
  assert.equal(form.el.textContent!.includes("must "), false); // no ajv wording anywhere in the form
  type(form.el.querySelector("#hm-count"), "2.5");
  assert.equal(under("count"), "Enter a whole number (not 2.5)"); // one message, not two joined
  // Every keyword has words; a pattern we know by what it accepts, not by its text.
  assert.equal(describePattern("^#[0-9a-f]{6}$"), "Use a colour like #1a2b3c");
  assert.equal(describePattern("^[A-Z]{3}$"), "Use 3 capital letters");
  assert.equal(describePattern("^(a|b)c+$"), null);
  const said = (keyword: string, params: object, parentSchema: object = {}) => humanMessage({ keyword, params, parentSchema, instancePath: "", schemaPath: "" } as any);
  assert.equal(said("type", { type: "integer" }), "Enter a whole number");
  assert.equal(said("type", { type: "number,null" }), "Enter a number");
  assert.equal(said("minItems", { limit: 1 }, { items: { enum: [1, 2, 3] } }), "Choose at least 1");
  assert.equal(said("maxItems", { limit: 2 }, { items: { enum: [1, 2, 3] } }), "Choose at most 2");
  assert.equal(said("exclusiveMinimum", { limit: 0 }), "Enter a number above 0");
  assert.equal(said("uniqueItems", { i: 2, j: 0 }), "Items 1 and 3 are the same: each must be different");
  assert.equal(said("pattern", { pattern: "^(a|b)c+$" }, { title: "A code" }), "Not in the expected form: A code");
  form.el.remove();
});

test("a field with two problems shows one message, and the card's line does not repeat it", async () => {
  const { renderText } = await import("../prompts/text");
  const sent: unknown[] = [];
  const prompt = {
    kind: "generic", tool_use_id: "c10", name: "pick", input: {}, input_schema: {}, description: "",
    output_schema: { type: "object", properties: { hex: { type: "string", pattern: "^#[0-9a-fA-F]{6}$", minLength: 7 } }, required: ["hex"] },
  };
  const body = document.createElement("div");
  renderText({ prompt, submit: (a: unknown) => sent.push(a) } as any, body, () => {});
  type(body.querySelector("#nt-answer-c10-hex"), "red");
  body.querySelector<HTMLButtonElement>(".nt-btn.nt-primary")!.click();
  assert.deepEqual(sent, []);
  const texts = Array.from(body.querySelectorAll(".nt-error, .nt-field-error")).map((e) => e.textContent).filter(Boolean);
  assert.deepEqual(texts, ["Use a colour like #1a2b3c", "Fix hex (marked in the form) before sending."]);
});

test("Reset to defaults shows only when the schema has defaults and the form differs from them", () => {
  const reset = (form: { el: HTMLElement }) => form.el.querySelector<HTMLButtonElement>(".nt-form-reset")!;
  // No defaults anywhere: never shown, whatever is typed.
  const bare = buildForm({ type: "object", properties: { a: { type: "string" }, n: { type: "integer" } } }, { a: "x" }, "r1");
  assert.equal(reset(bare).hidden, true);
  type(bare.el.querySelector("#r1-a"), "changed");
  assert.equal(reset(bare).hidden, true);
  // Defaults, and the values are the defaults: nothing to reset.
  const schema = { type: "object", properties: { n: { type: "integer", default: 3 }, mode: { enum: ["a", "b"], default: "b" }, note: { type: "string" } } };
  const same = buildForm(schema, {}, "r2");
  assert.equal(reset(same).hidden, true);
  type(same.el.querySelector("#r2-n"), "7"); // now it differs: the button shows...
  assert.equal(reset(same).hidden, false);
  reset(same).click(); // ...puts the defaults back, and goes again
  assert.deepEqual(same.values(), { n: 3, mode: "b" });
  assert.equal(reset(same).hidden, true);
  // Given values that differ from the defaults (an approval's arguments): shown from the start.
  assert.equal(reset(buildForm(schema, { n: 5, mode: "b" }, "r3")).hidden, false);
  // A default inside a nested object counts.
  const nested = { type: "object", properties: { opts: { type: "object", properties: { k: { type: "integer", default: 1 } } } } };
  assert.equal(reset(buildForm(nested, { opts: { k: 2 } }, "r4")).hidden, false);
});
