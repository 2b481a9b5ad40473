// Code and text: a file's content or a text result shown as code, coloured by highlight.js; plain
// text; markdown (through the one sanitizer, as the model's messages are).
import { h, markdown } from "../dom/dom";
import { colour } from "./highlight";

/** `code` in a <pre><code>, coloured as `language` when we know it. */
export function renderCode(code: string, language: string): HTMLElement {
  const el = h("code", { class: "nt-code", "data-language": language || undefined });
  colour(el, code, language);
  return h("pre", { class: "nt-code-box" }, el);
}

/** Plain text, as it is. */
export function renderText(text: string): HTMLElement {
  return h("pre", { class: "nt-text-box" }, text);
}

/** Markdown, sanitized by ../text/sanitize's allow-list. */
export function renderMarkdownView(text: string): HTMLElement {
  const box = markdown(text);
  box.classList.add("nt-shown-md");
  return box;
}
