// A run of the kernel toolset (kind "kernel.run"): the code as it ran, what it printed and showed,
// its error, what changed in the namespace (with a few changed cells), what Claude was sent, and an
// Undo button that runs the toolset's `undo` tool by hand back to this run's checkpoint. Every text
// here is the kernel's data or the model's code: text nodes only.
import type { ViewMsg } from "../wire/protocol";
import { h } from "../dom/dom";
import { renderCode, renderText } from "./code";
import type { ResultsContext } from "./context";

const record = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : String(v));

const SENT: Record<string, string> = {
  send: "Sent to Claude as shown",
  mask: "Sent to Claude with columns masked",
  aggregates: "Claude got aggregates only",
  withhold: "Nothing of its output was sent to Claude",
};

let requests = 0;

/** The run's card body. */
export function renderKernelRun(data: unknown, ctx: ResultsContext): HTMLElement {
  const run = record(data);
  const box = h("div", { class: "nt-kernel-run" });
  box.append(renderCode(text(run.code), "python"));
  for (const raw of list(run.outputs)) {
    const output = record(raw);
    const kind = text(output.kind);
    if (kind === "image") continue; // shown with the card's files
    const shown = renderText(text(output.text));
    shown.classList.add(`nt-run-${kind === "stderr" ? "stderr" : "out"}`);
    box.append(shown);
  }
  if (typeof run.error === "string" && run.error) {
    const error = renderText(run.error);
    error.classList.add("nt-run-error");
    box.append(error);
  }
  if (run.stopped) box.append(h("div", { class: "nt-run-note" }, run.stopped === "time_limit" ? "Stopped at its time limit" : "Stopped"));
  const changes = list(run.changes).map(record);
  if (changes.length) {
    const items = changes.map((change) => {
      const line = h("li", {}, text(change.summary));
      const cells = list(change.cells).map(record);
      if (cells.length) {
        line.append(
          h("table", { class: "nt-run-cells", "aria-label": `Changed cells of ${text(change.name)}` },
            h("thead", {}, h("tr", {}, h("th", {}, "row"), h("th", {}, "column"), h("th", {}, "before"), h("th", {}, "after"))),
            h("tbody", {}, ...cells.map((cell) => h("tr", {}, h("td", {}, text(cell.row)), h("td", {}, text(cell.column)), h("td", {}, text(cell.before)), h("td", {}, text(cell.after))))),
          ),
        );
      }
      return line;
    });
    box.append(h("div", { class: "nt-run-changes" }, h("div", { class: "nt-run-label" }, "What changed"), h("ul", {}, ...items)));
  } else {
    box.append(h("div", { class: "nt-run-note" }, "No variable changed"));
  }
  const sent = record(run.sent);
  const masked = list(sent.masked).map(text);
  const choice = text(sent.choice);
  if (SENT[choice]) box.append(h("div", { class: "nt-run-note" }, SENT[choice] + (choice === "mask" && masked.length ? `: ${masked.join(", ")}` : "")));
  const checkpoint = text(run.checkpoint);
  if (checkpoint) {
    const undo = h("button", { class: "nt-btn nt-run-undo", type: "button", title: `Restore the variables as they were before this run (checkpoint ${checkpoint}), and every later run` }, "Undo");
    undo.addEventListener("click", () => {
      undo.setAttribute("disabled", "");
      const msg = { type: "manual_tool", name: "undo", input: { to: checkpoint }, request_id: `undo-${checkpoint}-${++requests}` } as ViewMsg;
      ctx.send(msg);
    });
    box.append(h("div", { class: "nt-row nt-run-actions" }, h("span", { class: "nt-run-note" }, `Checkpoint ${checkpoint}`), undo));
  } else {
    box.append(h("div", { class: "nt-run-note" }, "No checkpoint: this run cannot be undone"));
  }
  return box;
}
