import type { Renderer } from "./common";
import { h } from "../dom/dom";
import { callArgs } from "./text";

export const renderConfirm: Renderer = (ctx, body) => {
  const input = ctx.prompt.input;
  const yes = h("button", { class: "nt-btn nt-primary", type: "button" }, String(input.confirm_label ?? "Yes"));
  const no = h("button", { class: "nt-btn", type: "button" }, String(input.deny_label ?? "No"));
  yes.addEventListener("click", () => ctx.submit({ value: "yes" }));
  no.addEventListener("click", () => ctx.submit({ value: "no" }));
  // An MCP server's sampling request: who asks, the model, the messages or the reply, as plain text.
  if ("server" in input) callArgs(ctx, body, ["confirm_label", "deny_label"], true);
  body.append(h("div", { class: "nt-row" }, yes, no));
};
