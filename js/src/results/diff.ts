// A file change as hunks with line numbers, unified or side by side (a toggle), coloured by language.
// The line diff is jsdiff's (`structuredPatch`); a change too large to diff quickly shows its counts.
import { structuredPatch } from "diff";
import type { StructuredPatchHunk } from "diff";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { colour, languageOf } from "./highlight";

/** Edits jsdiff may try before it gives up (a bound on time for huge, unrelated texts). */
export const MAX_EDIT_LENGTH = 5_000;
/** Lines coloured at most; past this, lines are plain. */
const MAX_COLOURED_LINES = 3_000;

export interface DiffData {
  path?: unknown;
  original?: unknown;
  modified?: unknown;
  is_new?: unknown;
}

interface Line {
  kind: "add" | "del" | "ctx";
  old: number | null;
  new: number | null;
  text: string;
}

/** The hunks of a change, or null when it is too large to diff in bounded time. */
export function hunksOf(original: string, modified: string): StructuredPatchHunk[] | null {
  const patch = structuredPatch("a", "b", original, modified, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH, timeout: 2000 });
  return patch ? patch.hunks : null;
}

function linesOf(hunk: StructuredPatchHunk): Line[] {
  let oldNo = hunk.oldStart;
  let newNo = hunk.newStart;
  const out: Line[] = [];
  for (const raw of hunk.lines) {
    const sign = raw[0];
    const text = raw.slice(1);
    if (sign === "+") out.push({ kind: "add", old: null, new: newNo++, text });
    else if (sign === "-") out.push({ kind: "del", old: oldNo++, new: null, text });
    else if (sign === " ") out.push({ kind: "ctx", old: oldNo++, new: newNo++, text });
    // "\ No newline at end of file": not a line of either side
  }
  return out;
}

export function renderDiff(data: DiffData, language: string): HTMLElement {
  const path = String(data.path ?? "");
  const original = typeof data.original === "string" ? data.original : "";
  const modified = typeof data.modified === "string" ? data.modified : "";
  const lang = language || languageOf(path);
  const hunks = hunksOf(original, modified);
  const view = h("div", { class: "nt-diff-view" });
  const toggle = h("button", { class: "nt-btn nt-diff-toggle", type: "button", "aria-pressed": "false" }, "Side by side");
  const head = h("div", { class: "nt-diff-head" }, h("code", { class: "nt-diff-path" }, path), data.is_new === true ? h("span", { class: "nt-diff-new" }, "new file") : null, toggle);
  view.append(head);
  if (hunks === null) {
    view.append(h("div", { class: "nt-diff-note" }, `This change is too large to show line by line (${original.split("\n").length} lines before, ${modified.split("\n").length} after).`));
    toggle.hidden = true;
    return view;
  }
  if (hunks.length === 0) {
    view.append(h("div", { class: "nt-diff-note" }, "No changes."));
    toggle.hidden = true;
    return view;
  }
  let coloured = 0;
  const code = (text: string): HTMLElement => {
    const el = h("code", { class: "nt-diff-code" });
    if (coloured++ < MAX_COLOURED_LINES) colour(el, text, lang);
    else setText(el, text);
    return el;
  };
  const num = (n: number | null) => h("td", { class: "nt-ln" }, n === null ? "" : String(n));
  const hunkRow = (hunk: StructuredPatchHunk, span: number) =>
    h("tr", { class: "nt-hunk" }, h("td", { colspan: String(span) }, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
  const sign = { add: "+", del: "-", ctx: " " } as const;

  const unified = () => {
    const body = h("tbody");
    for (const hunk of hunks) {
      body.append(hunkRow(hunk, 4));
      for (const line of linesOf(hunk)) {
        body.append(h("tr", { class: `nt-${line.kind}` }, num(line.old), num(line.new), h("td", { class: "nt-sign" }, sign[line.kind]), h("td", {}, code(line.text))));
      }
    }
    return h("table", { class: "nt-diff nt-diff-unified" }, body);
  };
  const split = () => {
    const body = h("tbody");
    for (const hunk of hunks) {
      body.append(hunkRow(hunk, 4));
      const lines = linesOf(hunk);
      for (let i = 0; i < lines.length; ) {
        if (lines[i].kind === "ctx") {
          const l = lines[i++];
          body.append(h("tr", { class: "nt-ctx" }, num(l.old), h("td", {}, code(l.text)), num(l.new), h("td", {}, code(l.text))));
          continue;
        }
        const dels: Line[] = [];
        const adds: Line[] = [];
        while (i < lines.length && lines[i].kind === "del") dels.push(lines[i++]);
        while (i < lines.length && lines[i].kind === "add") adds.push(lines[i++]);
        for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
          const d = dels[k];
          const a = adds[k];
          body.append(h("tr", {},
            num(d ? d.old : null), h("td", { class: d ? "nt-del" : "nt-empty" }, d ? code(d.text) : null),
            num(a ? a.new : null), h("td", { class: a ? "nt-add" : "nt-empty" }, a ? code(a.text) : null)));
        }
      }
    }
    return h("table", { class: "nt-diff nt-diff-split" }, body);
  };
  const box = h("div", { class: "nt-diff-scroll" }, unified());
  view.append(box);
  toggle.addEventListener("click", () => {
    const toSplit = toggle.getAttribute("aria-pressed") !== "true";
    toggle.setAttribute("aria-pressed", String(toSplit));
    setText(toggle, toSplit ? "Unified" : "Side by side");
    coloured = 0;
    box.replaceChildren(toSplit ? split() : unified());
  });
  return view;
}
