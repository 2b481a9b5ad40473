import type { Renderer } from "./common";
import { h } from "../dom";
import { plain } from "../sanitize";

/** Text prompts, and the validated text box of frontend tools without a renderer of their own. */
export const renderText: Renderer = (ctx, body) => {
  const input = ctx.prompt.input;
  const generic = ctx.prompt.kind === "generic";
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
  if (generic) {
    // A custom tool's arguments are what the model tells the person ("shown to the user"): labelled
    // lines in the card, not only the grey arguments line of the tool card.
    const shown = Object.entries(input).filter(([key]) => key !== "message" && key !== "prompt");
    const props = ((ctx.prompt.input_schema ?? {}) as { properties?: Record<string, { description?: string }> }).properties ?? {};
    if (shown.length) {
      body.append(h("dl", { class: "nt-kv nt-call-args", "aria-label": "What the model asks about" },
        ...shown.map(([key, value]) => h("div", { class: "nt-kv-item", title: plain(props[key]?.description) },
          h("dt", {}, label(key)),
          h("dd", {}, typeof value === "string" ? value : JSON.stringify(value))))));
    }
  }
  if (generic && ctx.prompt.output_schema) {
    body.append(h("pre", { class: "nt-schema" }, JSON.stringify(ctx.prompt.output_schema, null, 1)));
  }
  body.append(h("div", { class: "nt-row" }, box, send));
};

function label(key: string): string {
  const words = key.replace(/[_-]+/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
}
