// The approval card: approve, deny with a reason, or edit the arguments first; optionally remember.
//
// An argument the tool's schema marks as Python source (`"contentMediaType": "text/x-python"` on a
// top-level string property) is shown as coloured code, not inside the JSON of the other arguments,
// and edited in a code box of its own: the person reads what will run, not an escaped string.
import type { Renderer } from "./common";
import { formatArgs, h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { schemaForm } from "../form/form";
import { safe } from "../form/controls";
import { renderCode } from "../results/code";
import type { PromptPreview } from "../wire/protocol";

/** The media type that marks a string argument as Python source. */
export const PYTHON_SOURCE = "text/x-python";

/** Spaces a Tab puts in a code box (PEP 8's indent). */
export const TAB = "    ";

/** A code box shows at least this many lines and grows to at most this many, then scrolls. */
export const CODE_ROWS = { min: 3, max: 24 } as const;

/** The class of one line of a preview: added, removed, a hunk or file header, or context. `inHunks`: a
 * hunk (`@@`) came before it, so `--- x` is a removed line `-- x` (a SQL comment), not a file header. */
export function previewLineClass(kind: PromptPreview["kind"], line: string, inHunks = false): string {
  if (kind !== "diff") return "nt-preview-line";
  if (!inHunks && (line.startsWith("+++ ") || line.startsWith("--- "))) return "nt-preview-line nt-diff-file";
  if (line.startsWith("@@")) return "nt-preview-line nt-diff-hunk";
  if (line.startsWith("+")) return "nt-preview-line nt-diff-add";
  if (line.startsWith("-")) return "nt-preview-line nt-diff-del";
  return "nt-preview-line";
}

/** What the call will do (a diff, a command), line by line as text: what the person approves. */
export function renderPreview(preview: PromptPreview): HTMLElement {
  const label = preview.kind === "diff" ? "The change to approve (a diff)" : preview.kind === "command" ? "The command to approve" : "What will run";
  // one block per line (a tint spans the width; copying keeps the line breaks); an empty line keeps its height
  let inHunks = false;
  const lines = preview.text.split("\n").map((line) => {
    const cls = previewLineClass(preview.kind, line, inHunks);
    inHunks ||= line.startsWith("@@");
    return h("span", { class: cls }, line || " ");
  });
  // role and tabindex: a labelled <pre> that scrolls is reachable and named for the keyboard and screen readers
  return h("pre", { class: `nt-approval-preview nt-preview-${preview.kind}`, role: "group", "aria-label": label, tabindex: "0" }, ...lines);
}

/** The top-level arguments of `input` that `schema` marks as Python source and that are strings, in the schema's order. */
export function codeArguments(schema: Record<string, unknown> | null, input: Record<string, unknown>): string[] {
  const properties = schema?.properties;
  if (!properties || typeof properties !== "object") return [];
  return Object.entries(properties as Record<string, unknown>)
    .filter(([name, prop]) => typeof input[name] === "string" && typeof prop === "object" && prop !== null
      && (prop as Record<string, unknown>).contentMediaType === PYTHON_SOURCE)
    .map(([name]) => name);
}

/** `schema` without the properties in `names` (and without them among `required`): what the form edits. */
export function withoutProperties(schema: Record<string, unknown> | null, names: string[]): Record<string, unknown> | null {
  if (!schema || !names.length) return schema;
  const properties = Object.fromEntries(Object.entries((schema.properties ?? {}) as Record<string, unknown>).filter(([k]) => !names.includes(k)));
  const out: Record<string, unknown> = { ...schema, properties };
  if (Array.isArray(schema.required)) out.required = schema.required.filter((k) => !names.includes(k));
  return out;
}

/** How many rows a code box holding `text` shows. */
export function codeRows(text: string): number {
  return Math.min(CODE_ROWS.max, Math.max(CODE_ROWS.min, text.split("\n").length));
}

/** A monospace box to edit Python in: spell checking off, Tab indents (Shift+Tab still leaves the box,
 * so the keyboard is never trapped), and it grows with its lines up to CODE_ROWS.max. */
function codeEditor(name: string, code: string, id: string, hint: string): HTMLTextAreaElement {
  const area = h("textarea", {
    id, class: "nt-input nt-code-edit", spellcheck: "false", wrap: "off", autocomplete: "off", autocapitalize: "off",
    "aria-label": `${name} (Python code)`, "aria-describedby": hint, rows: String(codeRows(code)),
  });
  area.value = code;
  area.addEventListener("keydown", (event) => {
    if (event.key !== "Tab" || event.shiftKey || event.ctrlKey || event.altKey || event.metaKey) return;
    event.preventDefault();
    area.setRangeText(TAB, area.selectionStart, area.selectionEnd, "end");
    area.dispatchEvent(new Event("input", { bubbles: true }));
  });
  area.addEventListener("input", () => {
    area.rows = codeRows(area.value);
  });
  return area;
}

export const renderApproval: Renderer = (ctx, body) => {
  const { prompt } = ctx;
  const summary = prompt.description.split("\n")[0];
  const remember = h("select", { class: "nt-input nt-remember", "aria-label": "Remember this decision" },
    h("option", { value: "" }, "Ask me every time"),
    h("option", { value: "arguments" }, "Remember for these exact arguments"),
    h("option", { value: "tool" }, `Remember for every ${prompt.name} call`),
    prompt.scope ? h("option", { value: "scope" }, `Remember for ${prompt.scope}`) : null);
  const reason = h("input", { class: "nt-input nt-reason", type: "text", placeholder: "Reason (optional, the model sees it)", "aria-label": "Reason for denying" });
  const approve = h("button", { class: "nt-btn nt-primary", type: "button" }, "Approve");
  const deny = h("button", { class: "nt-btn nt-deny", type: "button" }, "Deny");
  const edit = h("button", { class: "nt-btn", type: "button", "aria-expanded": "false" }, "Edit arguments");
  const problem = h("div", { class: "nt-error", role: "alert" });

  const schema = prompt.input_schema;
  const code = codeArguments(schema, prompt.input);
  const rest = Object.fromEntries(Object.entries(prompt.input).filter(([k]) => !code.includes(k)));
  const restSchema = withoutProperties(schema, code);
  const restFields = Object.keys((restSchema?.properties ?? {}) as object).length + Object.keys(rest).length;

  // Enter in a field approves with the edited arguments, as the button does (not in a code box: Enter is a new line there).
  const idPrefix = `nt-edit-${prompt.tool_use_id}`;
  const form = schemaForm(restSchema as any, rest, idPrefix, { onSubmit: () => approveEdited.click() });
  const approveEdited = h("button", { class: "nt-btn nt-primary", type: "button" }, "Approve with these arguments");
  const hintId = `${idPrefix}-code-hint`;
  const editors = code.map((name) => ({ name, area: codeEditor(name, String(prompt.input[name]), `${idPrefix}-code-${safe(name)}`, hintId) }));
  if (code.length && !restFields) form.el.hidden = true; // the code is all there is to edit
  const editor = h("div", { class: "nt-editor", hidden: true },
    ...editors.map(({ name, area }) => h("div", { class: "nt-approval-code-edit" }, h("label", { class: "nt-approval-code-name", for: area.id }, name), area)),
    code.length ? h("div", { class: "nt-form-help", id: hintId }, "Tab indents; Shift+Tab moves on.") : null,
    form.el,
    h("div", { class: "nt-row nt-editor-actions" }, approveEdited));
  form.watch(problem);
  const rememberValue = () => (remember.value === "" ? null : remember.value);
  /** The edited arguments in the schema's order: the code boxes' text and the form's values. */
  const editedInput = (): Record<string, unknown> => {
    const values = form.values();
    const texts = Object.fromEntries(editors.map(({ name, area }) => [name, area.value]));
    const order = [...Object.keys((schema?.properties ?? {}) as object), ...Object.keys(values)];
    const out: Record<string, unknown> = {};
    for (const key of order) {
      if (key in out) continue;
      if (key in texts) out[key] = texts[key];
      else if (key in values) out[key] = values[key];
    }
    return out;
  };

  approve.addEventListener("click", () => ctx.submit({ value: { approved: true, remember: rememberValue() } }));
  deny.addEventListener("click", () => ctx.submit({ value: { approved: false, reason: reason.value.trim(), remember: null } }));
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      deny.click();
    }
  });
  // What will run: the code arguments coloured, then the other arguments as JSON (none when the code is all).
  const codeViews = code.map((name) => {
    const view = renderCode(String(prompt.input[name]), "python");
    view.classList.add("nt-approval-code");
    view.setAttribute("role", "group"); // a name on a <pre> needs a role to be read
    view.setAttribute("aria-label", `${name} (Python code)`);
    view.tabIndex = 0; // it scrolls: the keyboard can reach it
    return h("div", { class: "nt-approval-code-arg" }, h("div", { class: "nt-approval-code-name" }, name), view);
  });
  const dump = code.length === 0 || Object.keys(rest).length > 0
    ? h("pre", { class: "nt-approval-args" }, formatArgs(rest) || "(no arguments)")
    : null;
  // With a preview (the diff, the command) the arguments repeat it as escaped JSON: folded away, one click to check.
  const shownArgs = prompt.preview && dump
    ? h("details", { class: "nt-approval-args-more" }, h("summary", {}, "Arguments"), dump)
    : dump;
  const args = h("div", { class: "nt-approval-shown" }, prompt.preview ? renderPreview(prompt.preview) : null, ...codeViews, shownArgs);
  const reasons = prompt.reasons.length
    ? h("ul", { class: "nt-approval-reasons", "aria-label": "Why this call asks" }, ...prompt.reasons.map((r) => h("li", {}, r)))
    : null;
  edit.addEventListener("click", () => {
    editor.hidden = !editor.hidden;
    args.hidden = !editor.hidden; // the editor shows the same arguments, editable: one copy on screen
    edit.setAttribute("aria-expanded", String(!editor.hidden));
    if (!editor.hidden) editor.querySelector<HTMLElement>("input, select, textarea")?.focus();
  });
  approveEdited.addEventListener("click", () => {
    try {
      setText(problem, "");
      ctx.submit({ value: { approved: true, edited_input: editedInput(), remember: rememberValue() } });
    } catch (err) {
      setText(problem, (err as Error).message); // stays open: nothing was sent
    }
  });
  body.append(h("div", { class: "nt-approval-what" }, summary), args);
  if (reasons) body.append(reasons); // above the buttons: read before deciding
  body.append(
    // An agent that runs a call only as it asked it (an ACP agent) takes no edited arguments: no editor.
    h("div", { class: "nt-row" }, approve, deny, reason, ...(prompt.editable === false ? [] : [edit])),
    ...(prompt.editable === false ? [] : [editor]),
    problem,
    h("div", { class: "nt-row" }, remember),
  );
};
