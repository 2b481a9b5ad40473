// The approval card in jsdom: why the call asks, "remember for calls like this", and a Python argument
// shown as coloured code and edited in a code box; untrusted text stays text throughout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HOSTILE, noInjectedMarkup } from "../results/testDom";
import { plain } from "../text/sanitize";

const g = globalThis as Record<string, unknown>;
for (const name of ["HTMLTextAreaElement", "HTMLSelectElement", "HTMLInputElement"]) g[name] = (g.window as any)[name];

const { CODE_ROWS, TAB, codeArguments, codeRows, renderApproval, withoutProperties } = await import("./approval");
import type { Answer, PromptState } from "../wire/protocol";
import type { PromptContext } from "./common";

const CODE = "df = df.dropna()\nfor i in range(3):\n    print(i)\n";
const RUN_CODE_SCHEMA = {
  type: "object",
  properties: {
    code: { type: "string", contentMediaType: "text/x-python", description: "Python to run" },
    timeout: { type: "number", default: 30 },
  },
  required: ["code"],
};

function cardState(over: Partial<PromptState> = {}): PromptState {
  return {
    tool_use_id: `t-${Math.random().toString(36).slice(2)}`, name: "run_code", kind: "approval", input: { code: CODE },
    description: "Run Python in the notebook.", status: "pending", answer: "", error: "", timeout: null, requested_at: 0,
    output_schema: null, input_schema: RUN_CODE_SCHEMA, renderer: "", scope: "", reasons: [], preview: null, editable: true, ...over,
  };
}

function card(over: Partial<PromptState> = {}) {
  const answers: Answer[] = [];
  const prompt = cardState(over);
  const ctx: PromptContext = { prompt, submit: (a) => answers.push(a), send: () => undefined, onMessage: () => () => undefined, maxUploadBytes: 1 };
  const body = document.createElement("div");
  document.body.replaceChildren(body);
  renderApproval(ctx, body, () => undefined);
  const button = (label: string) => Array.from(body.querySelectorAll("button")).find((b) => b.textContent === label)!;
  return { body, answers, button };
}

function choose(select: HTMLSelectElement, value: string) {
  select.value = value;
  select.dispatchEvent(new Event("change", { bubbles: true }));
}

test("codeArguments finds top-level strings marked text/x-python, in the schema's order", () => {
  assert.deepEqual(codeArguments(RUN_CODE_SCHEMA, { code: "x" }), ["code"]);
  assert.deepEqual(codeArguments(RUN_CODE_SCHEMA, { code: 3 }), []); // not a string: shown as the other arguments are
  assert.deepEqual(codeArguments(null, { code: "x" }), []);
  assert.deepEqual(codeArguments({ properties: { code: { type: "string" } } }, { code: "x" }), []);
  assert.deepEqual(withoutProperties(RUN_CODE_SCHEMA, ["code"]), { type: "object", properties: { timeout: { type: "number", default: 30 } }, required: [] });
  assert.equal(codeRows("a"), CODE_ROWS.min);
  assert.equal(codeRows("a\n".repeat(100)), CODE_ROWS.max);
});

test("the reasons show as a list above the buttons, as text", () => {
  const { body } = card({ reasons: ["line 3: reassigns existing variable 'df'", ...HOSTILE] });
  const list = body.querySelector("ul.nt-approval-reasons")!;
  assert.ok(list, "a list of reasons");
  assert.equal(list.getAttribute("aria-label"), "Why this call asks");
  const items = Array.from(list.querySelectorAll("li"));
  assert.equal(items.length, 1 + HOSTILE.length);
  assert.equal(items[0].textContent, "line 3: reassigns existing variable 'df'");
  assert.equal(items[1].textContent, HOSTILE[0]);
  for (const li of items) assert.equal(li.children.length, 0, "no element made from a reason");
  const buttons = body.querySelector(".nt-row")!;
  assert.ok(list.compareDocumentPosition(buttons) & Node.DOCUMENT_POSITION_FOLLOWING, "the list comes before the buttons");
  assert.equal(body.querySelector("img"), null);
  noInjectedMarkup(body);
  assert.equal(card().body.querySelector(".nt-approval-reasons"), null, "no reasons: no list");
});

test("the scope option shows only when the card has a scope, and sends remember 'scope'", () => {
  const plain = card();
  const options = (c: { body: HTMLElement }) => Array.from(c.body.querySelectorAll<HTMLOptionElement>(".nt-remember option")).map((o) => o.value);
  assert.deepEqual(options(plain), ["", "arguments", "tool"]);

  const scoped = card({ scope: "code that reassigns variables or modifies data in place" });
  assert.deepEqual(options(scoped), ["", "arguments", "tool", "scope"]);
  const option = scoped.body.querySelector<HTMLOptionElement>('.nt-remember option[value="scope"]')!;
  assert.equal(option.textContent, "Remember for code that reassigns variables or modifies data in place");
  choose(scoped.body.querySelector<HTMLSelectElement>(".nt-remember")!, "scope");
  scoped.button("Approve").click();
  assert.deepEqual(scoped.answers, [{ value: { approved: true, remember: "scope" } }]);
});

test("a Python argument shows as coloured code, not in the JSON; the other arguments still do", () => {
  const only = card();
  const code = only.body.querySelector<HTMLElement>(".nt-approval-code code")!;
  assert.ok(code, "the code is shown as code");
  assert.ok(code.querySelectorAll("span").length > 0, "coloured: spans for its tokens");
  assert.equal(code.textContent, CODE);
  assert.equal(only.body.querySelector(".nt-approval-code")!.getAttribute("aria-label"), "code (Python code)");
  assert.equal(only.body.querySelector(".nt-approval-args"), null, "the code is the only argument: no JSON");

  const both = card({ input: { code: CODE, timeout: 5 } });
  assert.equal(both.body.querySelector(".nt-approval-args")!.textContent, '{ "timeout": 5 }');

  const none = card({ input: {}, input_schema: null });
  assert.equal(none.body.querySelector(".nt-approval-args")!.textContent, "(no arguments)");
  assert.equal(none.body.querySelector(".nt-approval-code"), null);
});

test("hostile code stays text: no element from it", () => {
  const hostile = HOSTILE.join("\n");
  const { body } = card({ input: { code: hostile } });
  const code = body.querySelector<HTMLElement>(".nt-approval-code code")!;
  assert.equal(code.textContent, plain(hostile)); // bidi controls made visible, as all untrusted text is
  for (const span of Array.from(code.querySelectorAll("*"))) assert.equal(span.tagName, "SPAN");
  assert.equal(body.querySelector("img, script, svg, b"), null);
  noInjectedMarkup(body);
  const area = body.querySelector<HTMLTextAreaElement>("textarea.nt-code-edit")!;
  assert.equal(area.value, hostile);
});

test("Edit opens a code box with the code and the form for the rest; the edit is what is sent", () => {
  const { body, answers, button } = card({ input: { code: CODE, timeout: 5 }, scope: "code that changes data" });
  const edit = button("Edit arguments");
  edit.click();
  assert.equal(edit.getAttribute("aria-expanded"), "true");
  assert.equal(body.querySelector<HTMLElement>(".nt-approval-shown")!.hidden, true, "one copy on screen");
  const area = body.querySelector<HTMLTextAreaElement>("textarea.nt-code-edit")!;
  assert.equal(area.value, CODE);
  assert.equal(area.getAttribute("spellcheck"), "false");
  assert.equal(area.getAttribute("aria-label"), "code (Python code)");
  assert.equal(document.activeElement, area, "focus goes to the code box");
  assert.ok(document.getElementById(area.getAttribute("aria-describedby")!), "its hint exists");
  assert.ok(body.querySelector(`label[for="${area.id}"]`), "labelled");
  const timeout = body.querySelector<HTMLInputElement>(".nt-form input")!;
  assert.equal(timeout.value, "5");
  assert.equal(body.querySelectorAll(".nt-form textarea").length, 0, "the code is not in the form too");

  area.value = "print('edited')\n";
  area.dispatchEvent(new Event("input", { bubbles: true }));
  timeout.value = "9";
  timeout.dispatchEvent(new Event("input", { bubbles: true }));
  choose(body.querySelector<HTMLSelectElement>(".nt-remember")!, "scope");
  button("Approve with these arguments").click();
  assert.deepEqual(answers, [{ value: { approved: true, edited_input: { code: "print('edited')\n", timeout: 9 }, remember: "scope" } }]);
  assert.deepEqual(Object.keys((answers[0] as any).value.edited_input), ["code", "timeout"], "in the schema's order");
});

test("the code alone: Edit shows no empty form, and sends the edited code", () => {
  const schema = { type: "object", properties: { code: RUN_CODE_SCHEMA.properties.code }, required: ["code"] };
  const { body, answers, button } = card({ input_schema: schema });
  button("Edit arguments").click();
  assert.equal(body.querySelector<HTMLElement>(".nt-form")!.hidden, true);
  const area = body.querySelector<HTMLTextAreaElement>("textarea.nt-code-edit")!;
  area.value = "x = 1";
  button("Approve with these arguments").click();
  assert.deepEqual(answers, [{ value: { approved: true, edited_input: { code: "x = 1" }, remember: null } }]);
});

test("a card that takes no edits (an ACP agent's) has no editor: approve and deny still answer", () => {
  const { body, answers, button } = card({ editable: false, preview: { kind: "command", text: "$ rm -rf build" } });
  assert.equal(button("Edit arguments"), undefined);
  assert.equal(body.querySelector(".nt-editor"), null);
  assert.equal(body.querySelector("textarea"), null);
  button("Approve").click();
  button("Deny").click();
  assert.deepEqual(answers, [
    { value: { approved: true, remember: null } },
    { value: { approved: false, reason: "", remember: null } },
  ]);
});

test("Tab in the code box inserts four spaces at the caret (Shift+Tab is left to the browser); the box grows", () => {
  const { body, button } = card({ input: { code: "if x:\npass" } });
  button("Edit arguments").click();
  const area = body.querySelector<HTMLTextAreaElement>("textarea.nt-code-edit")!;
  area.setSelectionRange(6, 6); // the start of "pass"
  const tab = new KeyboardEvent("keydown", { key: "Tab", bubbles: true, cancelable: true });
  area.dispatchEvent(tab);
  assert.equal(tab.defaultPrevented, true);
  assert.equal(area.value, `if x:\n${TAB}pass`);
  assert.equal(area.selectionStart, 6 + TAB.length, "the caret after the spaces");

  area.setSelectionRange(0, 2); // a selection is replaced, as typing would
  area.dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", bubbles: true, cancelable: true }));
  assert.equal(area.value, `${TAB} x:\n${TAB}pass`);

  const back = new KeyboardEvent("keydown", { key: "Tab", shiftKey: true, bubbles: true, cancelable: true });
  area.dispatchEvent(back);
  assert.equal(back.defaultPrevented, false, "Shift+Tab leaves the box: no keyboard trap");

  assert.equal(area.rows, CODE_ROWS.min);
  area.value = "x\n".repeat(10);
  area.dispatchEvent(new Event("input", { bubbles: true }));
  assert.equal(area.rows, 11);
  area.value = "x\n".repeat(200);
  area.dispatchEvent(new Event("input", { bubbles: true }));
  assert.equal(area.rows, CODE_ROWS.max, "then it scrolls");
});

test("a preview shows the diff line by line as text above the arguments, which fold away", () => {
  const diff = ["--- a.py", "+++ a.py", "@@ -1,2 +1,2 @@", "-DEBUG = True", "+DEBUG = False", " PORT = 8000", "--- a comment removed", "", ...HOSTILE.map((x) => `+${x}`)].join("\n");
  const { body, answers, button } = card({
    name: "Edit", input: { file_path: "a.py", old_string: "DEBUG = True", new_string: "DEBUG = False" }, input_schema: null,
    preview: { kind: "diff", text: diff },
  });
  const pre = body.querySelector<HTMLElement>("pre.nt-approval-preview")!;
  assert.ok(pre, "a preview");
  assert.equal(pre.getAttribute("aria-label"), "The change to approve (a diff)");
  const lines = Array.from(pre.querySelectorAll("span.nt-preview-line"));
  // as text, a bidi override made visible (a diff line cannot hide what it adds)
  assert.deepEqual(lines.map((l) => l.textContent), diff.split("\n").map((l) => plain(l) || " "));
  assert.ok(lines.some((l) => l.textContent === "+invoice⟨U+202E⟩gpj.exe"));
  const cls = (text: string) => lines.find((l) => l.textContent === text)!.className;
  assert.match(cls("-DEBUG = True"), /nt-diff-del/);
  assert.match(cls("+DEBUG = False"), /nt-diff-add/);
  assert.match(cls("@@ -1,2 +1,2 @@"), /nt-diff-hunk/);
  assert.match(cls("--- a.py"), /nt-diff-file/);
  assert.match(cls("--- a comment removed"), /nt-diff-del/); // after a hunk: a removed "-- " line, not a header
  assert.equal(cls(" PORT = 8000"), "nt-preview-line");
  noInjectedMarkup(body); // the hostile lines stayed text
  // above the arguments, which are there (folded) for whoever wants the JSON
  const fold = body.querySelector("details.nt-approval-args-more")!;
  assert.ok(fold && !(fold as HTMLDetailsElement).open);
  assert.ok(pre.compareDocumentPosition(fold) & Node.DOCUMENT_POSITION_FOLLOWING);
  assert.match(fold.querySelector(".nt-approval-args")!.textContent!, /DEBUG = False/);
  button("Approve").click();
  assert.deepEqual(answers, [{ value: { approved: true, remember: null } }]);
});

test("a command preview has no diff colours, and a card without a preview shows its arguments unfolded", () => {
  const { body } = card({ name: "Bash", input: { command: "cd data\npython run.py" }, input_schema: null, preview: { kind: "command", text: "$ cd data\n> python run.py" } });
  const lines = Array.from(body.querySelectorAll("pre.nt-approval-preview span"));
  assert.deepEqual(lines.map((l) => [l.textContent, l.className]), [["$ cd data", "nt-preview-line"], ["> python run.py", "nt-preview-line"]]);
  assert.equal(body.querySelector("pre.nt-approval-preview")!.getAttribute("aria-label"), "The command to approve");
  const plainCard = card({ name: "Bash", input: { command: "ls" }, input_schema: null });
  assert.equal(plainCard.body.querySelector(".nt-approval-preview"), null);
  assert.equal(plainCard.body.querySelector("details.nt-approval-args-more"), null);
  assert.ok(plainCard.body.querySelector(".nt-approval-shown > .nt-approval-args"));
});

const { promptCard } = await import("./common");

test("a countdown shows only for a pending prompt with a positive timeout", () => {
  const head = (timeout: unknown) => {
    const { prompt } = { prompt: { ...cardState(), timeout: timeout as number | null, requested_at: Date.now() / 1000 } };
    const built = promptCard({ prompt, submit: () => {}, send: () => {}, onMessage: () => () => {}, maxUploadBytes: 1 }, renderApproval);
    document.body.replaceChildren(built);
    const found = built.querySelector(".nt-timer");
    built.remove(); // (its tick stops once the card is gone)
    return found;
  };
  assert.ok(head(30), "30 s: a countdown");
  for (const timeout of [null, undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY, "30"]) {
    assert.equal(head(timeout), null, `no countdown for ${String(timeout)}`);
  }
});
