// A tool's rich result on its card: the summary line (always), then its kind's view, as the display
// hints ask: a preferred view, folded at first (`collapsed`), a height to scroll past, a language,
// or only the summary (`hidden`). An unknown kind, or data a view cannot read, shows as a JSON tree.
import type { Shown } from "../generated/protocol";
import { h } from "../dom/dom";
import type { ResultsContext } from "./context";
import { renderCode, renderMarkdownView, renderText } from "./code";
import { renderDiff } from "./diff";
import { renderFileList } from "./fileList";
import { renderKernelRun } from "./kernelRun";
import { languageOf } from "./highlight";
import { renderFiles } from "./media";
import { renderTable } from "./table";
import { renderTree } from "./tree";
import "./results.css";

export type { ResultsContext } from "./context";
export { NO_KERNEL } from "./context";

type View = "text" | "markdown" | "code" | "table" | "tree" | "diff" | "files" | "binary" | "hidden" | "kernel_run";

const record = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The view a result gets: its hint when it names one, else its kind's own (a tree for unknown kinds). */
export function viewOf(shown: Pick<Shown, "kind" | "display">): View {
  const hint = shown.display?.view;
  if (hint) return hint;
  switch (shown.kind) {
    case "table": return "table";
    case "diff": return "diff";
    case "file_list": return "files";
    case "file_content": return "code";
    case "text": return "text";
    case "binary": return "binary";
    case "kernel.run": return "kernel_run";
    default: return "tree"; // "json", and every kind this front end does not know
  }
}

/** The text a result's data holds, for the text, code and markdown views (JSON when it has none). */
function textOf(shown: Shown): string {
  const data = record(shown.data);
  return str(data.content) ?? (shown.kind === "json" ? JSON.stringify(data.data, null, 2) : JSON.stringify(shown.data, null, 2)) ?? "";
}

function body(shown: Shown, view: View, toolUseId: string, ctx: ResultsContext): HTMLElement | null {
  const data = record(shown.data);
  const language = shown.display?.language ?? "";
  switch (view) {
    case "table":
      return Array.isArray(data.columns) && Array.isArray(data.rows) ? renderTable(data, toolUseId, ctx) : renderTree(shown.data);
    case "diff":
      return typeof data.original === "string" && typeof data.modified === "string" ? renderDiff(data, language) : renderTree(shown.data);
    case "files":
      return Array.isArray(data.files) ? renderFileList(data.path, data.files) : renderTree(shown.data);
    case "code":
      return renderCode(textOf(shown), language || languageOf(data.path));
    case "text":
      return renderText(textOf(shown));
    case "markdown":
      return renderMarkdownView(textOf(shown));
    case "binary":
      return null; // its files are the view
    case "hidden":
      return null;
    case "kernel_run":
      return renderKernelRun(shown.data, ctx);
    default:
      return renderTree(shown.kind === "json" && "data" in data ? data.data : shown.data);
  }
}

/** `shown` as the card shows it (`div.nt-shown`); `toolUseId` names the call for the table's pages. */
export function renderShown(shown: Shown, toolUseId: string, ctx: ResultsContext): HTMLElement {
  const view = viewOf(shown);
  const summaryText = shown.summary || shown.kind;
  const box = h("div", { class: `nt-shown nt-view-${view}`, "data-kind": shown.kind, "data-view": view });
  if (view === "hidden") {
    box.append(h("div", { class: "nt-shown-summary" }, summaryText));
    return box;
  }
  let content: HTMLElement | null;
  try {
    content = body(shown, view, toolUseId, ctx);
  } catch {
    content = renderTree(shown.data); // data a view could not read: shown as it came
  }
  const inner = h("div", { class: "nt-shown-body" }, content, renderFiles(shown.files));
  const height = shown.display?.max_height;
  if (typeof height === "number" && Number.isFinite(height) && height > 0) {
    inner.style.maxHeight = `${Math.round(height)}px`; // a number we checked, set as a property
    inner.classList.add("nt-shown-scroll");
  }
  const fold = h("details", { class: "nt-shown-fold", open: !shown.display?.collapsed },
    h("summary", { class: "nt-shown-summary" }, summaryText), inner,
    shown.note ? h("div", { class: "nt-shown-note", role: "note" }, shown.note) : null);
  box.append(fold);
  return box;
}
