// A call the API ran itself, on one card with its result: what it did in one line ("Searched the web:
// …", "Fetched …", "Ran code", "Text editor: view …", "everything: echo"), then web results as titled
// links, code with its output (the result views' code and text boxes), the tools a tool search found,
// an MCP tool's or the editor's text, or an error line.
import type { Item } from "../wire/protocol";
import { h } from "../dom/dom";
import { renderCode, renderText } from "../results/code";
import { webLink } from "./links";

export function renderServerTool(item: Item): HTMLElement {
  const status = item.status ?? "running";
  const head = h("div", { class: "nt-tool-head" },
    status === "running" ? h("span", { class: "nt-spinner", "aria-label": "running" }) : h("span", { class: `nt-dot nt-${status}`, "aria-hidden": "true" }),
    h("span", { class: "nt-server-label" }, item.text ?? item.name ?? "server tool"));
  const card = h("div", { class: `nt-tool nt-server-tool nt-tool-${status}`, "data-tool-use-id": item.id, "data-server-tool": item.name ?? "" }, head);
  if (item.links?.length) {
    card.append(h("ul", { class: "nt-server-links" }, ...item.links.map((link) =>
      h("li", {}, webLink(link.title, link.url), link.detail ? h("span", { class: "nt-weblink-detail" }, link.detail) : null))));
  }
  const run = item.execution;
  if (run) {
    if (run.code) card.append(renderCode(run.code, run.language));
    if (run.stdout) card.append(h("div", { class: "nt-stream-label" }, "stdout"), renderText(run.stdout));
    if (run.stderr) card.append(h("div", { class: "nt-stream-label nt-stderr" }, "stderr"), renderText(run.stderr));
    if (run.return_code !== null && run.return_code !== undefined) {
      card.append(h("div", { class: `nt-return-code${run.return_code ? " nt-nonzero" : ""}` }, `return code ${run.return_code}`));
    }
  }
  if (item.found?.length) card.append(h("div", { class: "nt-server-found" }, `Found: ${item.found.join(", ")}`));
  if (item.result) {
    card.append(item.is_error
      ? h("div", { class: "nt-server-error", role: "alert" }, item.result)
      : h("details", { class: "nt-result" }, h("summary", {}, "Result"), h("pre", {}, item.result)));
  }
  return card;
}
