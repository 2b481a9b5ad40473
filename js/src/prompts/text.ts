import type { PromptContext, Renderer } from "./common";
import { h } from "../dom/dom";
import { plain, setText } from "../text/sanitize";
import { buildForm } from "../form/form";

/** Text prompts, and the validated text box of frontend tools without a renderer of their own. */
export const renderText: Renderer = (ctx, body) => {
  const input = ctx.prompt.input;
  const generic = ctx.prompt.kind === "generic";
  const schema = ctx.prompt.output_schema as Record<string, unknown> | null | undefined;
  if (generic && schema && typeof schema === "object" && schema.type !== "string") {
    callArgs(ctx, body, [], "server_message" in input);
    return renderAnswerForm(ctx, body, schema);
  }
  const multiline = Boolean(input.multiline) || generic;
  const box = multiline
    ? h("textarea", { class: "nt-input", rows: "3", "aria-label": "Your answer" })
    : h("input", { class: "nt-input", type: "text", "aria-label": "Your answer" });
  box.placeholder = generic
    ? ctx.prompt.output_schema ? "Answer as JSON matching the tool's output schema" : "Your answer"
    : plain(input.placeholder);
  box.value = String(input.default ?? "");
  const send = h("button", { class: "nt-btn nt-primary", type: "button" }, "Submit");
  const submit = () => ctx.submit({ value: box.value });
  send.addEventListener("click", submit);
  box.addEventListener("keydown", (event: Event) => {
    const key = event as KeyboardEvent;
    if (key.key === "Enter" && (!multiline || key.ctrlKey || key.metaKey)) {
      key.preventDefault();
      submit();
    }
  });
  if (generic) callArgs(ctx, body);
  if (generic && ctx.prompt.output_schema) {
    body.append(h("pre", { class: "nt-schema" }, JSON.stringify(ctx.prompt.output_schema, null, 1)));
  }
  body.append(h("div", { class: "nt-row" }, box, send));
};

/** A custom tool whose answer is structured (an object, a list, a number): the form engine over its
 * output schema. The kernel expects the answer as JSON text and checks it against the same schema. */
function renderAnswerForm(ctx: PromptContext, body: HTMLElement, schema: Record<string, unknown>): void {
  const send = h("button", { class: "nt-btn nt-primary", type: "button" }, "Submit");
  const problem = h("div", { class: "nt-error", role: "alert" });
  const form = buildForm(schema, undefined, `nt-answer-${ctx.prompt.tool_use_id}`, { onSubmit: () => send.click(), rootLabel: "answer" });
  form.watch(problem);
  send.addEventListener("click", () => {
    try {
      const value = form.values();
      setText(problem, "");
      ctx.submit({ value: JSON.stringify(value) });
    } catch (err) {
      setText(problem, (err as Error).message); // stays open: nothing was sent
    }
  });
  body.append(form.el, h("div", { class: "nt-row" }, send), problem);
}

/** A custom tool's arguments are what the model tells the person ("shown to the user"): labelled
 * lines in the card, not only the grey arguments line of the tool card. Always plain text: an MCP
 * server's message and the like (`wrap`: shown whole, on as many lines as it takes). */
export function callArgs(ctx: PromptContext, body: HTMLElement, omit: string[] = [], wrap = false): void {
  const hidden = new Set(["message", "prompt", ...omit]);
  const shown = Object.entries(ctx.prompt.input).filter(([key]) => !hidden.has(key));
  const props = ((ctx.prompt.input_schema ?? {}) as { properties?: Record<string, { description?: string }> }).properties ?? {};
  if (!shown.length) return;
  body.append(h("dl", { class: wrap ? "nt-kv nt-call-args nt-call-args-wrap" : "nt-kv nt-call-args", "aria-label": "What the model asks about" },
    ...shown.map(([key, value]) => h("div", { class: "nt-kv-item", title: plain(props[key]?.description) },
      h("dt", {}, label(key)),
      h("dd", {}, typeof value === "string" && value.includes("\n")
        ? h("pre", { class: "nt-text-box nt-call-arg-text" }, value) // a printout, a table: its lines kept
        : typeof value === "string" ? value : JSON.stringify(value))))));
}

function label(key: string): string {
  const words = key.replace(/[_-]+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
}
