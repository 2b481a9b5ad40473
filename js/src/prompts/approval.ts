// The approval card: approve, deny with a reason, or edit the arguments first; optionally remember.
import type { Renderer } from "./common";
import { formatArgs, h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { schemaForm } from "../form/form";

export const renderApproval: Renderer = (ctx, body) => {
  const { prompt } = ctx;
  const summary = prompt.description.split("\n")[0];
  const remember = h("select", { class: "nt-input nt-remember", "aria-label": "Remember this decision" },
    h("option", { value: "" }, "Ask me every time"),
    h("option", { value: "arguments" }, "Remember for these exact arguments"),
    h("option", { value: "tool" }, `Remember for every ${prompt.name} call`));
  const reason = h("input", { class: "nt-input nt-reason", type: "text", placeholder: "Reason (optional, the model sees it)", "aria-label": "Reason for denying" });
  const approve = h("button", { class: "nt-btn nt-primary", type: "button" }, "Approve");
  const deny = h("button", { class: "nt-btn nt-deny", type: "button" }, "Deny");
  const edit = h("button", { class: "nt-btn", type: "button", "aria-expanded": "false" }, "Edit arguments");
  const problem = h("div", { class: "nt-error", role: "alert" });
  // Enter in a field approves with the edited arguments, as the button does.
  const form = schemaForm(prompt.input_schema as any, prompt.input, `nt-edit-${prompt.tool_use_id}`, { onSubmit: () => approveEdited.click() });
  const approveEdited = h("button", { class: "nt-btn nt-primary", type: "button" }, "Approve with these arguments");
  const editor = h("div", { class: "nt-editor", hidden: true }, form.el, h("div", { class: "nt-row nt-editor-actions" }, approveEdited));
  form.watch(problem);
  const rememberValue = () => (remember.value === "" ? null : remember.value);

  approve.addEventListener("click", () => ctx.submit({ value: { approved: true, remember: rememberValue() } }));
  deny.addEventListener("click", () => ctx.submit({ value: { approved: false, reason: reason.value.trim(), remember: null } }));
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      deny.click();
    }
  });
  const args = h("pre", { class: "nt-approval-args" }, formatArgs(prompt.input) || "(no arguments)");
  edit.addEventListener("click", () => {
    editor.hidden = !editor.hidden;
    args.hidden = !editor.hidden; // the form shows the same arguments, editable: one copy on screen
    edit.setAttribute("aria-expanded", String(!editor.hidden));
    if (!editor.hidden) editor.querySelector<HTMLElement>("input, select, textarea")?.focus();
  });
  approveEdited.addEventListener("click", () => {
    try {
      setText(problem, "");
      ctx.submit({ value: { approved: true, edited_input: form.values(), remember: rememberValue() } });
    } catch (err) {
      setText(problem, (err as Error).message); // stays open: nothing was sent
    }
  });
  body.append(
    h("div", { class: "nt-approval-what" }, summary),
    args,
    h("div", { class: "nt-row" }, approve, deny, reason, edit),
    editor,
    problem,
    h("div", { class: "nt-row" }, remember),
  );
};
