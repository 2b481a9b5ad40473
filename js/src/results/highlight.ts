// Syntax colouring with highlight.js (its core and ten languages, to keep the bundle lean).
//
// highlight.js returns HTML: spans with classes around escaped text. That string never reaches
// innerHTML: `colour` reads it token by token (a span with hljs classes, its end, escaped text) into
// text nodes and spans it builds itself, and anything else in it makes the code plain text.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { textNode } from "../text/sanitize";

const LANGUAGES = { bash, css, javascript, json, markdown, python, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Code longer than this is shown plain: colouring it would hold up the page. */
export const MAX_HIGHLIGHT_CHARS = 100_000;

const BY_EXTENSION: Record<string, string> = {
  py: "python", pyi: "python", js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  ts: "typescript", tsx: "typescript", mts: "typescript", json: "json", ipynb: "json", sql: "sql",
  sh: "bash", bash: "bash", zsh: "bash", yml: "yaml", yaml: "yaml", md: "markdown", css: "css",
  html: "xml", htm: "xml", xml: "xml", svg: "xml",
};

/** The language to colour `path` in (by its extension), or "" when none of ours fits. */
export function languageOf(path: unknown): string {
  const name = String(path ?? "").toLowerCase();
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : BY_EXTENSION[name.slice(dot + 1)] ?? "";
}

/** Whether `language` (a name or an alias: "py", "ts", "sh") is one we colour. */
export function known(language: unknown): boolean {
  return typeof language === "string" && language !== "" && hljs.getLanguage(language) !== undefined;
}

const TOKEN = /<span class="([^"<>]*)">|<\/span>|&(amp|lt|gt|quot|#x27|#39);|[^<&]+/y;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };
const SAFE_CLASS = /^(?:hljs-[a-z0-9_-]+|[a-z]+_+|language-[a-z0-9_-]+)$/;

/** highlight.js's HTML as nodes, or null when it holds anything but its spans and escaped text. */
export function nodesOf(html: string): DocumentFragment | null {
  const root = document.createDocumentFragment();
  const stack: Array<DocumentFragment | HTMLElement> = [root];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(html);
    if (match === null || match.index !== at) return null;
    const top = stack[stack.length - 1];
    if (match[1] !== undefined) {
      const span = document.createElement("span");
      span.className = match[1].split(/\s+/).filter((c) => SAFE_CLASS.test(c)).join(" ");
      top.append(span);
      stack.push(span);
    } else if (match[0] === "</span>") {
      if (stack.length === 1) return null;
      stack.pop();
    } else if (match[2] !== undefined) {
      top.append(ENTITIES[match[2]]);
    } else {
      top.append(textNode(match[0]));
    }
  }
  return stack.length === 1 ? root : null;
}

/** `code` coloured as `language` into `el` (plain text when the language is not ours or it is long). */
export function colour(el: HTMLElement, code: string, language: unknown): void {
  if (known(language) && code.length <= MAX_HIGHLIGHT_CHARS) {
    try {
      const html = hljs.highlight(code, { language: language as string, ignoreIllegals: true }).value;
      const nodes = nodesOf(html);
      if (nodes !== null) {
        el.classList.add("hljs");
        el.replaceChildren(nodes);
        return;
      }
    } catch {
      // a grammar that fails on odd input: plain text below
    }
  }
  el.replaceChildren(textNode(code));
}
